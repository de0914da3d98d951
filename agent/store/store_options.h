// SPDX-License-Identifier: Apache-2.0
// How much history the store keeps and how it bounds its own work.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace nictune::store {

struct Resolution {
  absl::Duration step;       // spacing of rows at this resolution
  absl::Duration retention;  // rows older than this are deleted
};

struct StoreOptions {
  // Finest first. The first is the raw samples (its step is the sampling interval); each later
  // one holds averages over its step of the one before, so its step must be a whole multiple.
  std::vector<Resolution> resolutions = {
      {absl::Seconds(1), absl::Hours(1)},
      {absl::Seconds(10), absl::Hours(24)},
      {absl::Minutes(1), absl::Hours(24 * 30)},
  };
  // Recommendations and events older than this are deleted; the change journal is kept.
  absl::Duration record_retention = absl::Hours(24 * 30);
  int64_t disk_cap_bytes = int64_t{256} << 20;
  // The WAL file's cap. It stays near 4 MiB by itself (checkpoints every 1000 pages, truncated to
  // journal_size_limit); only a reader holding a snapshot open keeps checkpoints from resetting
  // it. Over the cap, samples, records and maintenance are refused until a checkpoint can empty
  // it (wal_cap.h); the change journal's rows, a few pages each, are still written.
  int64_t wal_cap_bytes = int64_t{16} << 20;
  // Upper bound on rows one maintenance transaction reads or deletes, so the write lock is short.
  int64_t maintenance_batch_rows = 5000;
  // Transactions one Maintain() call may run; work left over waits for the next call.
  int64_t maintenance_batches_per_call = 16;
  absl::Duration busy_timeout = absl::Seconds(5);
};

// InvalidArgument naming the offending field when the options cannot work.
absl::Status ValidateStoreOptions(const StoreOptions& options);

}  // namespace nictune::store
