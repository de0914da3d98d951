// SPDX-License-Identifier: Apache-2.0
// Times in the service's JSON: RFC 3339 in UTC, null when absent.
#pragma once

#include <optional>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace nictune::service {

inline nlohmann::json TimeJson(const std::optional<absl::Time>& t) {
  if (!t) return nullptr;
  return absl::FormatTime(absl::RFC3339_full, *t, absl::UTCTimeZone());
}

}  // namespace nictune::service
