// SPDX-License-Identifier: Apache-2.0
// `nictuned --check`'s look at the knobs: for the host and for each device, which settings the
// kernel lets nictuned read now, and whether a write would be let through. Nothing is written,
// not even the value a knob holds, since some drivers reset their queues on any coalescing write.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "driver/knobs/kernel_knob_provider.h"
#include "tuner/knob.h"

namespace nictune::check {

struct KnobAccessCheck {
  tuner::Knob knob = tuner::Knob::kRxUsecs;
  absl::Status read;   // Unimplemented: the kernel or the driver has no such setting
  absl::Status write;  // what a write would meet, judged without writing; Ok when read failed
};

struct KnobReach {
  std::string target;  // "host", or a device's name as kernel-name text
  std::string driver;  // the device's driver ("virtio_net"); empty for the host
  std::vector<KnobAccessCheck> knobs;
};

// The knobs the agent may set on `target`: the sysctls for "host", coalescing and the sysfs
// settings for a device. Each is opened through the kernel's provider and read once. A write is
// judged by what the kernel checks before taking one: a file's mode and mount (access(2) W_OK)
// and, for a device, `net_admin` (CAP_NET_ADMIN, which ethtool and a device's sysfs ask for).
KnobReach CheckKnobReach(const driver::knobs::KernelPaths& paths, const std::string& target,
                         const std::string& driver, const absl::Status& net_admin);

}  // namespace nictune::check
