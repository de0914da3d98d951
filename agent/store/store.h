// SPDX-License-Identifier: Apache-2.0
// The agent's SQLite history store: samples at several resolutions, recommendations and events,
// in state_dir/nictune.db. The change journal is not here: it has its own file (journal.h), so
// that nothing that happens to the history can reach it.
//
// Two connections to the one WAL database: the writer (samples, records, maintenance;
// synchronous=NORMAL, a crash may lose the last samples but never corrupts) and a query_only
// reader (history and stats do not wait for writes). Writes are serialised by one mutex, reads
// by another (taken after the write mutex, never before it). The WAL has a cap (wal_cap.h) that
// every write respects. Every method is safe to call from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/maintenance.h"
#include "agent/store/records.h"
#include "agent/store/series_catalog.h"
#include "agent/store/sqlite_connection.h"
#include "agent/store/store_options.h"

namespace nictune::store {

inline constexpr const char* kDatabaseFileName = "nictune.db";

class Store {
 public:
  // Creates state_dir (one level) if missing. A damaged database is moved aside and replaced by an
  // empty one with a loud log line (database_file.h); a database from a newer nictuned is refused.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& state_dir,
                                                     const StoreOptions& options);

  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // One window's samples, stamped `ts`, in one transaction. ResourceExhausted when the disk is
  // full: nothing of the window is stored and the store stays usable.
  absl::StatusOr<AppendResult> AppendSamples(absl::Time ts,
                                             const std::vector<SeriesSample>& samples);
  absl::StatusOr<HistoryResult> QueryHistory(const HistoryQuery& query);
  absl::StatusOr<std::vector<std::string>> SeriesNames();
  absl::StatusOr<bool> HasSeries(const std::string& name);

  absl::Status AppendRecommendations(const std::vector<RecommendationRecord>& recommendations);
  absl::StatusOr<std::vector<RecommendationRecord>> RecommendationsSince(absl::Time since);

  absl::Status AppendEvent(const EventRecord& event);
  absl::StatusOr<std::vector<EventRecord>> EventsSince(absl::Time since);

  // Downsampling, retention and the disk cap, at most maintenance_batches_per_call short
  // transactions; the write lock is released between them so appends and journal writes interleave.
  absl::StatusOr<MaintenanceReport> Maintain(absl::Time now);

  // Row counts are counted, not cached: this reads every index once, on the reader connection.
  absl::StatusOr<StoreStats> Stats();

  const std::string& path() const { return path_; }

 private:
  Store(std::string path, StoreOptions options, Connection writer, Connection reader);

  // Needs write_mutex_ held; takes read_mutex_ when the WAL is over its cap (wal_cap.h).
  absl::Status WalRoomLocked();

  // Remembers a failure for Stats(), then passes the result through.
  absl::Status Note(absl::Status status);
  template <typename T>
  absl::StatusOr<T> Note(absl::StatusOr<T> result) {
    if (!result.ok()) Note(result.status()).IgnoreError();
    return result;
  }

  const std::string path_;
  const StoreOptions options_;

  std::mutex write_mutex_;  // writer_, catalog_, maintenance_
  Connection writer_;
  SeriesCatalog catalog_;
  Maintenance maintenance_;

  std::mutex read_mutex_;  // reader_
  Connection reader_;

  std::mutex error_mutex_;
  std::string last_error_;
  std::optional<absl::Time> last_error_time_;
};

}  // namespace nictune::store
