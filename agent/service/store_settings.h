// SPDX-License-Identifier: Apache-2.0
// The store's options from the agent's flags: raw samples at the sampling interval kept for
// --raw_retention, then the --downsample tiers ("10s:24h,1m:720h": step:retention, each step a
// whole multiple of the one before), a disk cap and the retention of recommendations and events.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/store/store_options.h"

namespace nictune::service {

struct StoreSettings {
  absl::Duration interval = absl::Seconds(1);
  absl::Duration raw_retention = absl::Hours(1);
  std::string downsample = "10s:24h,1m:720h";
  int64_t cap_mb = 256;
  absl::Duration record_retention = absl::Hours(24 * 30);
};

// InvalidArgument naming the flag and the part of it that is wrong.
absl::StatusOr<store::StoreOptions> StoreOptionsFrom(const StoreSettings& settings);

}  // namespace nictune::service
