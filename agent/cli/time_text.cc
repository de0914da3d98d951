// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/time_text.h"

namespace nictune::cli {

std::string TimeText(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", time, absl::UTCTimeZone());
}

}  // namespace nictune::cli
