// The agent's own cost: CPU time and resident memory of this process.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"

namespace nictune::metrics {

struct ProcessUsage {
  double cpu_seconds = 0;  // user + system time since the process started
  uint64_t resident_bytes = 0;
};

// CPU time from getrusage(RUSAGE_SELF) (microsecond resolution, unlike /proc/self/stat's ticks);
// resident memory from /proc/self/statm (getrusage gives only the peak).
absl::StatusOr<ProcessUsage> ReadProcessUsage();

}  // namespace nictune::metrics
