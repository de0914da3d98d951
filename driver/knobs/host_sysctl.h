// Host sysctls of DESIGN.md §4 that the tuner has no Knob for yet (net.core.netdev_max_backlog),
// read and written like the others: one decimal write(2), read back, range checked first.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::driver::knobs {

// PROC_ROOT/sys/net/core/netdev_max_backlog. Values 1..INT_MAX: the kernel's proc_dointvec takes
// any int, but a backlog <= 0 drops every packet queued to a CPU's backlog.
absl::StatusOr<int64_t> ReadNetdevMaxBacklog(const std::string& proc_root);
absl::Status WriteNetdevMaxBacklog(const std::string& proc_root, int64_t value);

}  // namespace nictune::driver::knobs
