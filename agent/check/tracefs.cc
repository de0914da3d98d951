// SPDX-License-Identifier: Apache-2.0
#include "agent/check/tracefs.h"

#include <unistd.h>

#include "absl/status/status.h"

namespace nictune::check {

absl::StatusOr<std::string> CheckTracefs() {
  for (const char* path : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    if (access((std::string(path) + "/events").c_str(), R_OK) == 0) return std::string(path);
  }
  return absl::NotFoundError(
      "not mounted (no /sys/kernel/tracing/events): tracepoint programs cannot attach; "
      "mount -t tracefs nodev /sys/kernel/tracing");
}

}  // namespace nictune::check
