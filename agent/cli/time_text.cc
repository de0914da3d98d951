// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/time_text.h"

namespace nictune::cli {

std::string TimeText(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", time, absl::UTCTimeZone());
}

std::string AgentTimeText(const std::string& rfc3339) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error)) return rfc3339;
  return TimeText(time) + " UTC";
}

}  // namespace nictune::cli
