// SPDX-License-Identifier: Apache-2.0
// How a person sets a knob by hand, from where the knob lives (knob_catalog.h): the ethtool,
// sysctl or sysfs command, the netlink request for one NAPI instance, or what the application
// must do for its own socket. `nictune recommend --as=...` prints these, so that a
// recommendation can be carried out without apply mode.
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

}  // namespace nictune::driver::knobs
