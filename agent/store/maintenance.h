// SPDX-License-Identifier: Apache-2.0
// Downsampling, retention and the disk cap, done as a series of small transactions so that no
// step holds the write lock for long: each reads or deletes at most maintenance_batch_rows rows.
// The sampling loop calls Store::Maintain once per interval; work left over waits for the next
// call.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/records.h"
#include "agent/store/sqlite_connection.h"
#include "agent/store/store_options.h"

namespace nictune::store {

class Maintenance {
 public:
  Maintenance(Connection* connection, const StoreOptions* options)
      : connection_(connection), options_(options) {}

  // Runs one transaction of the most urgent work: first the disk cap (free pages, then the
  // oldest rows, finest resolution first), then rows of resolutions no longer configured, then
  // downsampling, then retention. Returns false when nothing was left to do. Once nothing was,
  // only the disk cap is looked at until the finest downsampled step has passed: no bucket can
  // close and little can expire sooner, and looking costs a dozen queries. A clock stepped back
  // ends that rest.
  absl::StatusOr<bool> Step(absl::Time now, MaintenanceReport& report);

 private:
  struct Progress {
    int64_t bucket_ts = 0;
    int64_t next_series_id = 0;
  };

  absl::StatusOr<bool> ReturnFreePages();
  absl::StatusOr<bool> EvictOverCap(MaintenanceReport& report);
  absl::StatusOr<bool> DropUnconfigured(MaintenanceReport& report);
  absl::StatusOr<bool> Downsample(size_t resolution, int64_t now_ms, MaintenanceReport& report);
  absl::StatusOr<bool> Expire(size_t resolution, int64_t now_ms, MaintenanceReport& report);
  absl::StatusOr<bool> ExpireRecords(int64_t now_ms, MaintenanceReport& report);

  // Deletes at most one batch of the oldest rows at `step_ms` with ts < `before_ms`, in its own
  // transaction; returns how many.
  absl::StatusOr<int64_t> DeleteOldest(int64_t step_ms, int64_t before_ms);
  absl::StatusOr<std::optional<Progress>> LoadProgress(int64_t step_ms);
  int64_t StepMs(size_t resolution) const;

  Connection* connection_;
  const StoreOptions* options_;
  absl::Time caught_up_at_ = absl::InfinitePast();
};

}  // namespace nictune::store
