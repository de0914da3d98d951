// SPDX-License-Identifier: Apache-2.0
// --emulated_nic=DEVICE=SOCKET_PATH: an emulated NIC (driver/emulated) the agent tunes like a
// driver's device, reached over its control socket.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::service {

struct EmulatedNicSpec {
  std::string device;       // the TAP device's name, as recommendations name it ("emu0")
  std::string socket_path;  // its control socket
};

// Each value is DEVICE=SOCKET_PATH; several may be given (repeated or comma-separated).
// InvalidArgument naming the value for a missing part, a socket path that is not absolute, or a
// device named twice.
absl::StatusOr<std::vector<EmulatedNicSpec>> ParseEmulatedNics(
    const std::vector<std::string>& values);

// Every value of --NAME given on the command line (absl keeps only the last of a repeated flag).
std::vector<std::string> RepeatedFlagValues(int argc, char** argv, absl::string_view name);

}  // namespace nictune::service
