// SPDX-License-Identifier: Apache-2.0
#include "agent/store/sample_writer.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "agent/store/series_labels.h"

namespace nictune::store {
namespace {

absl::StatusOr<AppendResult> WriteInTransaction(Connection& connection, SeriesCatalog& catalog,
                                                int64_t raw_step_ms, int64_t ts_ms,
                                                const std::vector<SeriesSample>& samples) {
  AppendResult result;
  absl::StatusOr<Transaction> transaction = Transaction::Begin(connection, "append samples");
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<Statement> insert = connection.Prepare(
      "INSERT OR REPLACE INTO samples (step_ms, ts, series_id, value, count) "
      "VALUES (?1, ?2, ?3, ?4, 1)",
      "append samples");
  if (!insert.ok()) return insert.status();
  for (const SeriesSample& sample : samples) {
    if (!IsValidSeriesName(sample.name)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("append samples to %s: series name \"%s\" is not a metric name",
                          connection.path(), sample.name));
    }
    if (!std::isfinite(sample.value)) {
      ++result.skipped_not_finite;
      continue;
    }
    absl::StatusOr<std::string> labels = EncodeLabels(sample.labels);
    if (!labels.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat("append samples to %s: series %s: %s",
                                                        connection.path(), sample.name,
                                                        labels.status().message()));
    }
    bool created = false;
    absl::StatusOr<int64_t> series_id = catalog.Intern(sample.name, *labels, created);
    if (!series_id.ok()) return series_id.status();
    if (created) ++result.new_series;
    insert->Reset();
    insert->BindInt64(1, raw_step_ms);
    insert->BindInt64(2, ts_ms);
    insert->BindInt64(3, *series_id);
    insert->BindDouble(4, sample.value);
    absl::Status inserted = insert->Run();
    if (!inserted.ok()) return inserted;
    ++result.rows_written;
  }
  absl::Status committed = transaction->Commit();
  if (!committed.ok()) return committed;
  return result;
}

}  // namespace

absl::StatusOr<AppendResult> WriteSamples(Connection& connection, SeriesCatalog& catalog,
                                          int64_t raw_step_ms, absl::Time ts,
                                          const std::vector<SeriesSample>& samples) {
  absl::StatusOr<AppendResult> result =
      WriteInTransaction(connection, catalog, raw_step_ms, absl::ToUnixMillis(ts), samples);
  if (result.ok()) {
    catalog.Commit();
  } else {
    catalog.Discard();
  }
  return result;
}

}  // namespace nictune::store
