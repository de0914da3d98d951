// What /proc says about a process a test started (by its pid): its resident memory, and whether
// it still runs (a zombie does not).
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "absl/status/statusor.h"

namespace nictune::testing_support {

// VmRSS of /proc/PID/status, in bytes.
absl::StatusOr<uint64_t> ResidentBytes(pid_t pid);

// True while /proc/PID/stat exists and its state is not Z (zombie) or X (dead).
absl::StatusOr<bool> StillRunning(pid_t pid);

}  // namespace nictune::testing_support
