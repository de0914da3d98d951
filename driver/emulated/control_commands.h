// SPDX-License-Identifier: Apache-2.0
// How a person sets an emulated NIC's moderation by hand: its control protocol's SET line, sent
// to its control socket with socat. The emulated NIC's device is a TAP, which refuses `ethtool -C`,
// so the kernel's command for the same knob (driver/knobs/knob_commands.h) would fail there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "tuner/knob.h"

namespace nictune::driver::emulated {

// The control protocol's key (control_protocol.h) for a knob the emulated NIC holds; none for
// the others, which are the kernel's own on its device.
std::optional<absl::string_view> ControlKeyFor(tuner::Knob knob);

// "printf 'SET rx_usecs 50\n' | socat - UNIX-CONNECT:/run/emu0.sock"; a "# ..." line naming the
// request where the path has characters a shell or socat's address syntax would read; none for a
// knob the emulated NIC does not hold.
std::optional<std::string> ControlShellCommand(tuner::Knob knob, int64_t value,
                                               absl::string_view control_socket_path);

}  // namespace nictune::driver::emulated
