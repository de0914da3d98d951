// SPDX-License-Identifier: Apache-2.0
#include "agent/store/maintenance.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "absl/strings/str_format.h"
#include "agent/store/disk_usage.h"
#include "agent/store/sample_stamps.h"
#include "agent/store/weighted_mean.h"

namespace nictune::store {
namespace {

constexpr int64_t kMinTs = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxTs = std::numeric_limits<int64_t>::max();
// Pages one incremental_vacuum returns to the file system (4 MiB at the default page size).
constexpr int64_t kVacuumPagesPerStep = 1024;

int64_t AlignDown(int64_t ts, int64_t step) { return ts - (((ts % step) + step) % step); }

}  // namespace

int64_t Maintenance::StepMs(size_t resolution) const {
  return absl::ToInt64Milliseconds(options_->resolutions[resolution].step);
}

absl::StatusOr<bool> Maintenance::Step(absl::Time now, MaintenanceReport& report) {
  const int64_t now_ms = absl::ToUnixMillis(now);
  absl::StatusOr<bool> worked = ReturnFreePages();
  if (!worked.ok() || *worked) return worked;
  worked = EvictOverCap(report);
  if (!worked.ok() || *worked) return worked;
  // A clock stepped back ends the rest rather than stretching it.
  const absl::Duration rest =
      options_->resolutions[std::min<size_t>(1, options_->resolutions.size() - 1)].step;
  if (caught_up_at_ <= now && now < caught_up_at_ + rest) return false;
  worked = DropUnconfigured(report);
  if (!worked.ok() || *worked) return worked;
  for (size_t i = 1; i < options_->resolutions.size(); ++i) {
    worked = Downsample(i, now_ms, report);
    if (!worked.ok() || *worked) return worked;
  }
  for (size_t i = 0; i < options_->resolutions.size(); ++i) {
    worked = Expire(i, now_ms, report);
    if (!worked.ok() || *worked) return worked;
  }
  worked = ExpireRecords(now_ms, report);
  if (worked.ok() && !*worked) caught_up_at_ = now;
  return worked;
}

absl::StatusOr<bool> Maintenance::ReturnFreePages() {
  absl::StatusOr<PageUsage> usage = ReadPageUsage(*connection_);
  if (!usage.ok()) return usage.status();
  // Free pages are reused by the next inserts; giving them back is worth the I/O only when the
  // file itself is over the cap.
  if (usage->free_pages == 0 || usage->file_bytes() <= options_->disk_cap_bytes) return false;
  absl::Status vacuumed =
      connection_->Exec(absl::StrFormat("PRAGMA incremental_vacuum(%d)",
                                        std::min(usage->free_pages, kVacuumPagesPerStep)),
                        "return free pages to the file system");
  if (!vacuumed.ok()) return vacuumed;
  return true;
}

absl::StatusOr<bool> Maintenance::EvictOverCap(MaintenanceReport& report) {
  absl::StatusOr<PageUsage> usage = ReadPageUsage(*connection_);
  if (!usage.ok()) return usage.status();
  if (usage->used_bytes() <= options_->disk_cap_bytes) return false;
  // Raw rows go first, and first those a coarser resolution already averaged: then the history
  // loses detail, not time. Only when no such row is left does the cap take rows not yet averaged.
  for (const bool averaged_only : {true, false}) {
    for (size_t i = 0; i < options_->resolutions.size(); ++i) {
      int64_t before_ms = kMaxTs;
      if (averaged_only && i + 1 < options_->resolutions.size()) {
        absl::StatusOr<std::optional<Progress>> progress = LoadProgress(StepMs(i + 1));
        if (!progress.ok()) return progress.status();
        before_ms = progress->has_value() ? (*progress)->bucket_ts : kMinTs;
      }
      absl::StatusOr<int64_t> deleted = DeleteOldest(StepMs(i), before_ms);
      if (!deleted.ok()) return deleted.status();
      if (*deleted > 0) {
        report.rows_evicted += *deleted;
        return true;
      }
    }
  }
  // No samples left: the oldest events and recommendations. The change journal is never evicted.
  for (const char* table : {"events", "recommendations"}) {
    absl::StatusOr<Transaction> transaction =
        Transaction::Begin(*connection_, "evict records over the disk cap");
    if (!transaction.ok()) return transaction.status();
    absl::StatusOr<Statement> evict = connection_->Prepare(
        absl::StrFormat("DELETE FROM %s WHERE id IN (SELECT id FROM %s ORDER BY id LIMIT ?1)",
                        table, table),
        absl::StrFormat("evict %s over the disk cap", table));
    if (!evict.ok()) return evict.status();
    evict->BindInt64(1, options_->maintenance_batch_rows);
    absl::Status run = evict->Run();
    if (!run.ok()) return run;
    const int64_t deleted = connection_->RowsChanged();
    absl::Status committed = transaction->Commit();
    if (!committed.ok()) return committed;
    if (deleted > 0) {
      report.rows_evicted += deleted;
      return true;
    }
  }
  return false;  // over the cap with only the journal and series left: nothing more to give up
}

absl::StatusOr<bool> Maintenance::DropUnconfigured(MaintenanceReport& report) {
  absl::StatusOr<Statement> next_step = connection_->Prepare(
      "SELECT min(step_ms) FROM samples WHERE step_ms > ?1", "find stored resolutions");
  if (!next_step.ok()) return next_step.status();
  int64_t after = kMinTs;
  for (;;) {
    next_step->Reset();
    next_step->BindInt64(1, after);
    absl::StatusOr<bool> row = next_step->Step();
    if (!row.ok()) return row.status();
    if (!*row || next_step->ColumnIsNull(0)) return false;
    const int64_t step_ms = next_step->ColumnInt64(0);
    after = step_ms;
    const bool configured = std::any_of(
        options_->resolutions.begin(), options_->resolutions.end(),
        [step_ms](const Resolution& r) { return absl::ToInt64Milliseconds(r.step) == step_ms; });
    if (configured) continue;
    absl::StatusOr<int64_t> deleted = DeleteOldest(step_ms, kMaxTs);
    if (!deleted.ok()) return deleted.status();
    absl::Status forgotten = connection_->Exec(
        absl::StrFormat("DELETE FROM downsample_progress WHERE step_ms = %d", step_ms),
        "forget downsampling of an unconfigured resolution");
    if (!forgotten.ok()) return forgotten;
    report.rows_expired += *deleted;
    return true;
  }
}

absl::StatusOr<std::optional<Maintenance::Progress>> Maintenance::LoadProgress(int64_t step_ms) {
  absl::StatusOr<Statement> select = connection_->Prepare(
      "SELECT bucket_ts, next_series_id FROM downsample_progress WHERE step_ms = ?1",
      "read downsampling progress");
  if (!select.ok()) return select.status();
  select->BindInt64(1, step_ms);
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<Progress>();
  return std::optional<Progress>(Progress{select->ColumnInt64(0), select->ColumnInt64(1)});
}

absl::StatusOr<bool> Maintenance::Downsample(size_t resolution, int64_t now_ms,
                                             MaintenanceReport& report) {
  const int64_t source_ms = StepMs(resolution - 1);
  const int64_t target_ms = StepMs(resolution);
  absl::StatusOr<std::optional<Progress>> stored = LoadProgress(target_ms);
  if (!stored.ok()) return stored.status();
  Progress progress;
  if (stored->has_value()) {
    progress = **stored;
  } else {
    absl::StatusOr<std::optional<int64_t>> first = FirstStampFrom(*connection_, source_ms, kMinTs);
    if (!first.ok()) return first.status();
    if (!first->has_value()) return false;  // nothing to downsample yet
    progress.bucket_ts = AlignDown(**first, target_ms);
  }
  // A bucket is complete once a whole source step has passed after its end: a window's samples
  // are stamped when the window ends, a little after the instant they describe.
  if (progress.bucket_ts + target_ms + source_ms > now_ms) return false;

  const std::string operation = absl::StrFormat("downsample %d ms rows into %d ms averages at %d",
                                                source_ms, target_ms, progress.bucket_ts);
  absl::StatusOr<Transaction> transaction = Transaction::Begin(*connection_, operation);
  if (!transaction.ok()) return transaction.status();

  bool truncated = false;
  const int64_t batch_rows = options_->maintenance_batch_rows;
  // All of the bucket's timestamps: an average over part of them would be wrong. Their number is
  // the appends per bucket (10 for 1 s into 10 s), not the number of series.
  absl::StatusOr<std::vector<int64_t>> stamps =
      DistinctStamps(*connection_, source_ms, progress.bucket_ts, progress.bucket_ts + target_ms,
                     std::numeric_limits<size_t>::max(), truncated);
  if (!stamps.ok()) return stamps.status();
  // Series per batch so that (timestamps in the bucket) x (series) rows are read at most.
  const int64_t series_per_batch =
      std::max<int64_t>(1, batch_rows / std::max<int64_t>(1, static_cast<int64_t>(stamps->size())));
  absl::StatusOr<std::optional<int64_t>> max_series =
      connection_->QueryInt64("SELECT max(id) FROM series", operation);
  if (!max_series.ok()) return max_series.status();

  std::map<int64_t, WeightedMean> means;
  if (!stamps->empty()) {
    absl::StatusOr<Statement> read = connection_->Prepare(
        "SELECT series_id, value, count FROM samples "
        "WHERE step_ms = ?1 AND ts = ?2 AND series_id >= ?3 AND series_id < ?4",
        operation);
    if (!read.ok()) return read.status();
    for (int64_t stamp : *stamps) {
      read->Reset();
      read->BindInt64(1, source_ms);
      read->BindInt64(2, stamp);
      read->BindInt64(3, progress.next_series_id);
      read->BindInt64(4, progress.next_series_id + series_per_batch);
      for (;;) {
        absl::StatusOr<bool> row = read->Step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        const int64_t count = read->ColumnInt64(2);
        WeightedMean& mean = means[read->ColumnInt64(0)];
        mean.weighted_sum += read->ColumnDouble(1) * static_cast<double>(count);
        mean.count += count;
      }
    }
    absl::StatusOr<Statement> write = connection_->Prepare(
        "INSERT OR REPLACE INTO samples (step_ms, ts, series_id, value, count) "
        "VALUES (?1, ?2, ?3, ?4, ?5)",
        operation);
    if (!write.ok()) return write.status();
    for (const auto& [series_id, mean] : means) {
      write->Reset();
      write->BindInt64(1, target_ms);
      write->BindInt64(2, progress.bucket_ts);
      write->BindInt64(3, series_id);
      write->BindDouble(4, mean.weighted_sum / static_cast<double>(mean.count));
      write->BindInt64(5, mean.count);
      absl::Status written = write->Run();
      if (!written.ok()) return written;
    }
  }

  progress.next_series_id += series_per_batch;
  if (stamps->empty() || progress.next_series_id > max_series->value_or(0)) {
    // Bucket done. Skip empty buckets up to the next source row, or, when there is none, up to
    // the last complete bucket (the agent may have been down for days).
    absl::StatusOr<std::optional<int64_t>> next =
        FirstStampFrom(*connection_, source_ms, progress.bucket_ts + target_ms);
    if (!next.ok()) return next.status();
    const int64_t resume =
        next->has_value() ? AlignDown(**next, target_ms) : AlignDown(now_ms - source_ms, target_ms);
    progress.bucket_ts = std::max(progress.bucket_ts + target_ms, resume);
    progress.next_series_id = 0;
  }
  absl::StatusOr<Statement> save = connection_->Prepare(
      "INSERT OR REPLACE INTO downsample_progress (step_ms, bucket_ts, next_series_id) "
      "VALUES (?1, ?2, ?3)",
      operation);
  if (!save.ok()) return save.status();
  save->BindInt64(1, target_ms);
  save->BindInt64(2, progress.bucket_ts);
  save->BindInt64(3, progress.next_series_id);
  absl::Status saved = save->Run();
  if (!saved.ok()) return saved;
  absl::Status committed = transaction->Commit();
  if (!committed.ok()) return committed;
  report.rows_downsampled += static_cast<int64_t>(means.size());
  return true;
}

absl::StatusOr<bool> Maintenance::Expire(size_t resolution, int64_t now_ms,
                                         MaintenanceReport& report) {
  const int64_t step_ms = StepMs(resolution);
  int64_t before_ms =
      now_ms - absl::ToInt64Milliseconds(options_->resolutions[resolution].retention);
  if (resolution + 1 < options_->resolutions.size()) {
    // Rows the next resolution has not averaged yet are kept, however old.
    absl::StatusOr<std::optional<Progress>> progress = LoadProgress(StepMs(resolution + 1));
    if (!progress.ok()) return progress.status();
    if (!progress->has_value()) return false;
    before_ms = std::min(before_ms, (*progress)->bucket_ts);
  }
  absl::StatusOr<int64_t> deleted = DeleteOldest(step_ms, before_ms);
  if (!deleted.ok()) return deleted.status();
  report.rows_expired += *deleted;
  return *deleted > 0;
}

absl::StatusOr<bool> Maintenance::ExpireRecords(int64_t now_ms, MaintenanceReport& report) {
  const int64_t before_ms = now_ms - absl::ToInt64Milliseconds(options_->record_retention);
  for (const char* table : {"events", "recommendations"}) {
    const std::string operation = absl::StrFormat("expire %s", table);
    absl::StatusOr<Transaction> transaction = Transaction::Begin(*connection_, operation);
    if (!transaction.ok()) return transaction.status();
    absl::StatusOr<Statement> expire = connection_->Prepare(
        absl::StrFormat(
            "DELETE FROM %s WHERE id IN (SELECT id FROM %s WHERE ts < ?1 ORDER BY ts LIMIT ?2)",
            table, table),
        operation);
    if (!expire.ok()) return expire.status();
    expire->BindInt64(1, before_ms);
    expire->BindInt64(2, options_->maintenance_batch_rows);
    absl::Status run = expire->Run();
    if (!run.ok()) return run;
    const int64_t deleted = connection_->RowsChanged();
    absl::Status committed = transaction->Commit();
    if (!committed.ok()) return committed;
    if (deleted > 0) {
      report.rows_expired += deleted;
      return true;
    }
  }
  return false;
}

absl::StatusOr<int64_t> Maintenance::DeleteOldest(int64_t step_ms, int64_t before_ms) {
  const std::string operation =
      absl::StrFormat("delete %d ms rows older than %d", step_ms, before_ms);
  absl::StatusOr<Transaction> transaction = Transaction::Begin(*connection_, operation);
  if (!transaction.ok()) return transaction.status();
  // The key of the row just past one batch bounds a range delete on the primary key, which SQLite
  // does without sorting or a temporary table.
  absl::StatusOr<Statement> boundary = connection_->Prepare(
      "SELECT ts, series_id FROM samples WHERE step_ms = ?1 AND ts < ?2 "
      "ORDER BY ts, series_id LIMIT 1 OFFSET ?3",
      operation);
  if (!boundary.ok()) return boundary.status();
  boundary->BindInt64(1, step_ms);
  boundary->BindInt64(2, before_ms);
  boundary->BindInt64(3, options_->maintenance_batch_rows);
  absl::StatusOr<bool> row = boundary->Step();
  if (!row.ok()) return row.status();
  int64_t until_ts = before_ms;
  int64_t until_series = kMinTs;  // all of ts < before_ms when fewer than a batch are that old
  if (*row) {
    until_ts = boundary->ColumnInt64(0);
    until_series = boundary->ColumnInt64(1);
  }
  // Two deletes rather than one with OR: each is a plain range on the primary key.
  int64_t deleted = 0;
  for (const char* sql :
       {"DELETE FROM samples WHERE step_ms = ?1 AND ts < ?2",
        "DELETE FROM samples WHERE step_ms = ?1 AND ts = ?2 AND series_id < ?3"}) {
    absl::StatusOr<Statement> remove = connection_->Prepare(sql, operation);
    if (!remove.ok()) return remove.status();
    remove->BindInt64(1, step_ms);
    remove->BindInt64(2, until_ts);
    if (until_series != kMinTs) remove->BindInt64(3, until_series);
    absl::Status removed = remove->Run();
    if (!removed.ok()) return removed;
    deleted += connection_->RowsChanged();
  }
  absl::Status committed = transaction->Commit();
  if (!committed.ok()) return committed;
  return deleted;
}

}  // namespace nictune::store
