// SPDX-License-Identifier: Apache-2.0
#include "agent/actuate/actuation_result.h"

namespace nictune::actuate {

absl::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kWritten:
      return "written";
    case Outcome::kRolledBack:
      return "rolled_back";
    case Outcome::kRestored:
      return "restored";
    case Outcome::kUnchanged:
      return "unchanged";
    case Outcome::kReleased:
      return "released";
    case Outcome::kRefused:
      return "refused";
    case Outcome::kKept:
      return "kept";
    case Outcome::kUnsupported:
      return "unsupported";
    case Outcome::kFailed:
      return "failed";
  }
  return "unknown";
}

}  // namespace nictune::actuate
