// SPDX-License-Identifier: Apache-2.0
// The plain data the Store takes and returns. Times are absl::Time; the database keeps unix
// milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace nictune::store {

// Sorted by key, keys unique: {"cpu", "0"}, {"mode", "softirq"}.
using Labels = std::vector<std::pair<std::string, std::string>>;

struct SeriesSample {
  std::string name;  // nictune_* metric name
  Labels labels;
  double value = 0;
};

struct AppendResult {
  int64_t rows_written = 0;
  int64_t new_series = 0;
  int64_t skipped_not_finite = 0;  // NaN and infinities have no place in an average
};

struct HistoryQuery {
  std::string series;  // metric name
  Labels match;        // every pair must be among the series' labels; empty matches all
  absl::Time since;
  absl::Time until;
  // Spacing of the returned points; zero means the resolution the store picked.
  absl::Duration step = absl::ZeroDuration();
};

struct HistoryPoint {
  absl::Time ts;
  double value = 0;  // mean over the step
};

struct SeriesHistory {
  std::string name;
  Labels labels;
  std::vector<HistoryPoint> points;
};

struct HistoryResult {
  absl::Duration resolution;  // step of the stored rows the answer came from
  std::vector<SeriesHistory> series;
};

struct RecommendationRecord {
  absl::Time ts;
  std::string knob;    // tuner::KnobName
  std::string scope;   // tuner::ScopeName
  std::string target;  // "host", "eth0", "eth0 rx 3"
  int64_t current = 0;
  int64_t recommended = 0;
  std::string json;  // the whole recommendation with its inputs and arithmetic
};

// The life of one journaled kernel write. Pending states (journaled, applied, verified) still owe
// the kernel its original value; the others are final.
enum class ChangeState { kJournaled, kApplied, kVerified, kRolledBack, kRestored, kReleased };

struct OriginalValue {
  std::string boot_id;  // /proc/sys/kernel/random/boot_id: a journal from another boot is stale
  absl::Time ts;
  std::string knob;
  std::string target;
  int64_t original = 0;
  std::string reason;  // why the change is about to be made
};

struct ChangeUpdate {
  int64_t id = 0;
  absl::Time ts;
  ChangeState state = ChangeState::kApplied;
  std::optional<int64_t> value;  // the value now in the kernel, when this step wrote one
  std::string reason;
};

struct ChangeRecord {
  int64_t id = 0;
  std::string boot_id;
  absl::Time ts;          // when the original was journaled
  absl::Time updated_ts;  // last state change
  std::string knob;
  std::string target;
  int64_t original = 0;
  std::optional<int64_t> new_value;
  ChangeState state = ChangeState::kJournaled;
  std::string reason;
};

struct EventRecord {
  absl::Time ts;
  std::string level;  // "error", "warning", "notice", "info"
  std::string message;
};

struct TableRows {
  std::string table;  // "samples 1s", "series", "changes", ...
  int64_t rows = 0;
};

struct StoreStats {
  std::string path;
  int64_t file_bytes = 0;  // database + WAL + shared-memory index on disk
  int64_t used_bytes = 0;  // pages holding data plus WAL: what the disk cap compares
  int64_t disk_cap_bytes = 0;
  std::vector<TableRows> rows;
  std::string last_error;  // most recent failed operation, empty if none since Open
  std::optional<absl::Time> last_error_time;
};

struct MaintenanceReport {
  int64_t batches = 0;
  int64_t rows_downsampled = 0;  // coarse rows written
  int64_t rows_expired = 0;      // deleted by retention
  int64_t rows_evicted = 0;      // deleted to stay under the disk cap
  bool caught_up = false;        // false when work was left for the next call
};

}  // namespace nictune::store
