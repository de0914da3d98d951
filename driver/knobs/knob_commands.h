// SPDX-License-Identifier: Apache-2.0
// How a person sets a knob by hand, from where the knob lives (knob_catalog.h): the ethtool,
// sysctl or sysfs command, the netlink request for one NAPI instance, or what the application
// must do for its own socket, and the line a tuned profile gives it. `nictune recommend --as=...`
// prints these, so that a recommendation can be carried out without apply mode.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "driver/knobs/knob_access.h"

namespace nictune::driver::knobs {

// One shell line that sets address to value, e.g. "ethtool -C eth0 rx-usecs 50" or
// "sysctl -w net.core.netdev_budget=600"; a comment ("# ...") where no command does it.
// InvalidArgument for a target ParseKnobTarget refuses or one that does not fit the knob.
absl::StatusOr<std::string> ShellCommandFor(const KnobAddress& address, int64_t value);

// Text as the rest of one "# ..." comment line: a line break in it would start a command.
std::string ShellCommentText(absl::string_view text);

// "net.core.netdev_budget = 600", a sysctl.d line, for a host sysctl; none for other knobs.
std::optional<std::string> SysctlConfLine(tuner::Knob knob, int64_t value);

// Where a knob's setting goes in a tuned profile (tuned.conf): the plugin that sets it and the
// option it takes there.
enum class TunedPlugin {
  kSysctl,  // [sysctl]: "net.core.netdev_budget=600"
  kNet,     // a [net] instance for `device`: words of its coalesce= option, "rx-usecs 50"
  kSysfs,   // [sysfs]: "/sys/class/net/eth0/gro_flush_timeout=20000"
};
struct TunedSetting {
  TunedPlugin plugin = TunedPlugin::kSysctl;
  std::string device;  // kNet's device, one plain word
  std::string option;
};

// The tuned setting for address = value. FailedPrecondition, saying why, for what a profile
// cannot hold: a socket's buffer (the application's), one NAPI instance (netlink only), a device
// whose name is not one plain word in tuned's syntax; InvalidArgument as ShellCommandFor.
absl::StatusOr<TunedSetting> TunedSettingFor(const KnobAddress& address, int64_t value);

}  // namespace nictune::driver::knobs
