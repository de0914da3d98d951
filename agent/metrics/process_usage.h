// SPDX-License-Identifier: Apache-2.0
// The agent's own cost and resources, as the standard process_* series of Prometheus clients
// report them: CPU time, memory, file descriptors, and when the process started.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"

namespace nictune::metrics {

struct ProcessUsage {
  double cpu_seconds = 0;  // user + system time since the process started
  uint64_t resident_bytes = 0;
  uint64_t virtual_bytes = 0;
  // nullopt when /proc/self/fd cannot be listed (out of descriptors, say): the rest still count.
  std::optional<uint64_t> open_fds;
  uint64_t max_fds = 0;  // the soft RLIMIT_NOFILE
};

// CPU time from getrusage(RUSAGE_SELF) (microsecond resolution, unlike /proc/self/stat's ticks);
// memory from /proc/self/statm (getrusage gives only the peak); descriptors from /proc/self/fd
// and getrlimit.
absl::StatusOr<ProcessUsage> ReadProcessUsage();

// When this process started, in seconds since the Unix epoch: /proc/self/stat's start time (clock
// ticks since boot) after /proc/stat's btime.
absl::StatusOr<double> ReadProcessStartTime();

}  // namespace nictune::metrics
