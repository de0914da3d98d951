// SPDX-License-Identifier: Apache-2.0
#include "agent/store/store.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "agent/store/database_file.h"
#include "agent/store/disk_usage.h"
#include "agent/store/history_reader.h"
#include "agent/store/record_tables.h"
#include "agent/store/sample_writer.h"
#include "agent/store/schema.h"
#include "agent/store/state_dir.h"
#include "agent/store/wal_cap.h"

namespace nictune::store {
namespace {

constexpr int kOpenFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;

absl::Status ConfigureWriter(Connection& writer) {
  absl::StatusOr<std::optional<int64_t>> pages =
      writer.QueryInt64("PRAGMA page_count", "read page count");
  if (!pages.ok()) return pages.status();
  if (pages->value_or(0) == 0) {
    // Only a database with no tables yet can take incremental auto-vacuum, which lets maintenance
    // give pages back to the disk when over the cap.
    absl::Status set = writer.Exec("PRAGMA auto_vacuum = INCREMENTAL", "enable auto-vacuum");
    if (!set.ok()) return set;
  }
  absl::StatusOr<std::string> mode =
      writer.QueryText("PRAGMA journal_mode = WAL", "switch to WAL mode");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal") {
    return absl::FailedPreconditionError(absl::StrFormat(
        "SQLite %s: switch to WAL mode: journal mode is still %s", writer.path(), *mode));
  }
  // Samples may lose their last moments in a power cut; they are not worth an fsync per window.
  // The WAL is checkpointed every 1000 pages and cut back to 4 MiB, which bounds it on disk only
  // while no reader holds a snapshot open; the cap in wal_cap.h bounds it then.
  // secure_delete=FAST: Debian's default of zeroing deleted rows doubles the I/O of retention.
  return writer.Exec(
      "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 4194304; "
      "PRAGMA wal_autocheckpoint = 1000; PRAGMA secure_delete = FAST;",
      "configure the writer connection");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& state_dir,
                                                   const StoreOptions& options) {
  absl::Status valid = ValidateStoreOptions(options);
  if (!valid.ok()) return valid;
  absl::Status dir = EnsureStateDirectory(state_dir);
  if (!dir.ok()) return dir;
  const std::string path = state_dir + "/" + kDatabaseFileName;
  const auto busy_ms = static_cast<int>(absl::ToInt64Milliseconds(options.busy_timeout));

  absl::StatusOr<Connection> writer = OpenCheckedDatabase(path, busy_ms, absl::Now());
  if (!writer.ok()) return writer.status();
  absl::Status ready = ConfigureWriter(*writer);
  if (!ready.ok()) return ready;
  ready = ApplyMigrations(*writer, SchemaMigrations());
  if (!ready.ok()) return ready;

  absl::StatusOr<Connection> reader = Connection::Open(path, kOpenFlags, busy_ms);
  if (!reader.ok()) return reader.status();
  ready = reader->Exec("PRAGMA query_only = ON", "configure the reader connection");
  if (!ready.ok()) return ready;
  ready = SyncDirectory(state_dir);
  if (!ready.ok()) return ready;

  return std::unique_ptr<Store>(new Store(path, options, std::move(*writer), std::move(*reader)));
}

Store::Store(std::string path, StoreOptions options, Connection writer, Connection reader)
    : path_(std::move(path)),
      options_(std::move(options)),
      writer_(std::move(writer)),
      catalog_(&writer_),
      maintenance_(&writer_, &options_),
      reader_(std::move(reader)) {}

absl::Status Store::Note(absl::Status status) {
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_error_ = std::string(status.message());
    last_error_time_ = absl::Now();
  }
  return status;
}

absl::Status Store::WalRoomLocked() {
  if (WalFileBytes(path_) <= options_.wal_cap_bytes) return absl::OkStatus();
  // Our own reader out of any snapshot while the checkpoint looks for readers: its queries are
  // short, so this waits at most for one of them, and they cannot starve the checkpoint.
  std::lock_guard<std::mutex> lock(read_mutex_);
  return MakeWalRoom(writer_, options_.wal_cap_bytes);
}

absl::StatusOr<AppendResult> Store::AppendSamples(absl::Time ts,
                                                  const std::vector<SeriesSample>& samples) {
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (absl::Status room = WalRoomLocked(); !room.ok()) return Note(room);
  return Note(WriteSamples(writer_, catalog_,
                           absl::ToInt64Milliseconds(options_.resolutions.front().step), ts,
                           samples));
}

absl::StatusOr<HistoryResult> Store::QueryHistory(const HistoryQuery& query) {
  std::lock_guard<std::mutex> lock(read_mutex_);
  return Note(ReadHistory(reader_, options_.resolutions, query));
}

absl::StatusOr<std::vector<std::string>> Store::SeriesNames() {
  std::lock_guard<std::mutex> lock(read_mutex_);
  return Note(ReadSeriesNames(reader_));
}

absl::StatusOr<bool> Store::HasSeries(const std::string& name) {
  std::lock_guard<std::mutex> lock(read_mutex_);
  return Note(ReadHasSeries(reader_, name));
}

absl::Status Store::AppendRecommendations(
    const std::vector<RecommendationRecord>& recommendations) {
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (absl::Status room = WalRoomLocked(); !room.ok()) return Note(room);
  return Note(WriteRecommendations(writer_, recommendations));
}

absl::StatusOr<std::vector<RecommendationRecord>> Store::RecommendationsSince(absl::Time since) {
  std::lock_guard<std::mutex> lock(read_mutex_);
  return Note(ReadRecommendations(reader_, since));
}

absl::Status Store::AppendEvent(const EventRecord& event) {
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (absl::Status room = WalRoomLocked(); !room.ok()) return Note(room);
  return Note(WriteEvent(writer_, event));
}

absl::StatusOr<std::vector<EventRecord>> Store::EventsSince(absl::Time since) {
  std::lock_guard<std::mutex> lock(read_mutex_);
  return Note(ReadEvents(reader_, since));
}

absl::StatusOr<MaintenanceReport> Store::Maintain(absl::Time now) {
  MaintenanceReport report;
  for (int64_t i = 0; i < options_.maintenance_batches_per_call; ++i) {
    absl::StatusOr<bool> worked;
    {
      std::lock_guard<std::mutex> lock(write_mutex_);
      if (absl::Status room = WalRoomLocked(); !room.ok()) return Note(room);
      worked = maintenance_.Step(now, report);
    }
    if (!worked.ok()) return Note(worked.status());
    if (!*worked) {
      report.caught_up = true;
      return report;
    }
    ++report.batches;
  }
  return report;
}

absl::StatusOr<StoreStats> Store::Stats() {
  StoreStats stats;
  stats.path = path_;
  stats.disk_cap_bytes = options_.disk_cap_bytes;
  stats.file_bytes = DatabaseFilesBytes(path_);
  {
    std::lock_guard<std::mutex> lock(read_mutex_);
    absl::StatusOr<PageUsage> usage = ReadPageUsage(reader_);
    if (!usage.ok()) return Note(usage.status());
    stats.used_bytes = usage->used_bytes();
    for (const Resolution& resolution : options_.resolutions) {
      const int64_t step_ms = absl::ToInt64Milliseconds(resolution.step);
      absl::StatusOr<std::optional<int64_t>> rows = reader_.QueryInt64(
          absl::StrFormat("SELECT count(*) FROM samples WHERE step_ms = %d", step_ms),
          "count samples");
      if (!rows.ok()) return Note(rows.status());
      stats.rows.push_back({absl::StrFormat("samples %s", absl::FormatDuration(resolution.step)),
                            rows->value_or(0)});
    }
    for (const char* table : {"series", "recommendations", "events"}) {
      absl::StatusOr<std::optional<int64_t>> rows = reader_.QueryInt64(
          absl::StrFormat("SELECT count(*) FROM %s", table), absl::StrFormat("count %s", table));
      if (!rows.ok()) return Note(rows.status());
      stats.rows.push_back({table, rows->value_or(0)});
    }
  }
  std::lock_guard<std::mutex> lock(error_mutex_);
  stats.last_error = last_error_;
  stats.last_error_time = last_error_time_;
  return stats;
}

}  // namespace nictune::store
