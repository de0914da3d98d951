// SPDX-License-Identifier: Apache-2.0
#include "agent/service/store_settings.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nictune::service {

absl::StatusOr<store::StoreOptions> StoreOptionsFrom(const StoreSettings& settings) {
  store::StoreOptions options;
  options.resolutions = {{settings.interval, settings.raw_retention}};
  for (absl::string_view tier : absl::StrSplit(settings.downsample, ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> parts = absl::StrSplit(tier, ':');
    absl::Duration step;
    absl::Duration retention;
    if (parts.size() != 2 || !absl::ParseDuration(parts[0], &step) ||
        !absl::ParseDuration(parts[1], &retention)) {
      return absl::InvalidArgumentError(absl::StrCat("--downsample=", settings.downsample, ": \"",
                                                     tier, "\" is not STEP:RETENTION (10s:24h)"));
    }
    options.resolutions.push_back({step, retention});
  }
  if (settings.cap_mb < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--store_cap_mb=", settings.cap_mb, ": must be at least 1"));
  }
  options.disk_cap_bytes = settings.cap_mb << 20;
  options.record_retention = settings.record_retention;
  if (absl::Status valid = store::ValidateStoreOptions(options); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--interval/--raw_retention/--downsample/--record_retention: ", valid.message()));
  }
  return options;
}

}  // namespace nictune::service
