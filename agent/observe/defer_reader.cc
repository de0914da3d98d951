// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/defer_reader.h"

#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/observe/sysfs_integer.h"
#include "driver/kernel_name.h"

namespace nictune::observe {

absl::StatusOr<tuner::DeferState> ReadDeferState(const std::string& sys_root,
                                                 const std::string& device) {
  const std::string dir = absl::StrCat(sys_root, "/class/net/", driver::KernelNameBytes(device));
  const std::string defer_path = dir + "/napi_defer_hard_irqs";
  const std::string timeout_path = dir + "/gro_flush_timeout";
  // Missing knob files mean "unsupported" only on a device that exists.
  absl::StatusOr<std::optional<int64_t>> ifindex = ReadIntegerFile(dir + "/ifindex");
  if (!ifindex.ok()) return ifindex.status();
  if (!ifindex->has_value()) {
    return absl::NotFoundError(absl::StrCat("read defer settings of ", device, ": ", dir,
                                            " does not exist (no such device)"));
  }
  absl::StatusOr<std::optional<int64_t>> defer = ReadIntegerFile(defer_path);
  if (!defer.ok()) return defer.status();
  absl::StatusOr<std::optional<int64_t>> timeout = ReadIntegerFile(timeout_path);
  if (!timeout.ok()) return timeout.status();
  // Deferral needs both: a kernel older than 5.10 has gro_flush_timeout alone.
  if (!defer->has_value() || !timeout->has_value()) return tuner::DeferState{};
  if (**defer < 0 || **defer > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(defer_path, ": ", **defer, " is outside 0..",
                                                   std::numeric_limits<uint32_t>::max()));
  }
  if (**timeout < 0) {
    return absl::InvalidArgumentError(absl::StrCat(timeout_path, ": ", **timeout, " is negative"));
  }
  return tuner::DeferState{.supported = true,
                           .napi_defer_hard_irqs = static_cast<uint32_t>(**defer),
                           .gro_flush_timeout_ns = static_cast<uint64_t>(**timeout)};
}

DeferReading ReadDeferStates(const std::string& sys_root, const std::vector<std::string>& devices) {
  DeferReading reading;
  for (const std::string& device : devices) {
    absl::StatusOr<tuner::DeferState> state = ReadDeferState(sys_root, device);
    if (state.ok()) {
      reading.states[device] = *state;
    } else {
      reading.errors.push_back(std::string(state.status().message()));
    }
  }
  return reading;
}

}  // namespace nictune::observe
