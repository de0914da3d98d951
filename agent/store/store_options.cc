// SPDX-License-Identifier: Apache-2.0
#include "agent/store/store_options.h"

#include "absl/strings/str_format.h"

namespace nictune::store {

absl::Status ValidateStoreOptions(const StoreOptions& options) {
  if (options.resolutions.empty()) {
    return absl::InvalidArgumentError("store options: at least one resolution (the raw one)");
  }
  for (size_t i = 0; i < options.resolutions.size(); ++i) {
    const Resolution& r = options.resolutions[i];
    if (r.step < absl::Milliseconds(1) || r.step % absl::Milliseconds(1) != absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "store options: resolution %d step %s is not a positive whole number of milliseconds", i,
          absl::FormatDuration(r.step)));
    }
    if (r.retention < r.step) {
      return absl::InvalidArgumentError(
          absl::StrFormat("store options: resolution %d retention %s is shorter than its step %s",
                          i, absl::FormatDuration(r.retention), absl::FormatDuration(r.step)));
    }
    if (i == 0) continue;
    const absl::Duration finer = options.resolutions[i - 1].step;
    if (r.step <= finer || r.step % finer != absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "store options: resolution %d step %s is not a multiple (> 1) of the step %s before it",
          i, absl::FormatDuration(r.step), absl::FormatDuration(finer)));
    }
  }
  if (options.disk_cap_bytes < (int64_t{1} << 16)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "store options: disk cap %d bytes is below the 64 KiB an empty database needs",
        options.disk_cap_bytes));
  }
  if (options.wal_cap_bytes < (int64_t{1} << 20)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "store options: WAL cap %d bytes is below 1 MiB (one window's samples may need that much)",
        options.wal_cap_bytes));
  }
  if (options.maintenance_batch_rows < 1 || options.maintenance_batches_per_call < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "store options: maintenance batch rows %d and batches per call %d must be positive",
        options.maintenance_batch_rows, options.maintenance_batches_per_call));
  }
  if (options.record_retention <= absl::ZeroDuration() ||
      options.busy_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "store options: record retention must be positive and busy timeout not negative");
  }
  return absl::OkStatus();
}

}  // namespace nictune::store
