// SPDX-License-Identifier: Apache-2.0
// Whether this process holds a capability in its effective set, from /proc/self/status (CapEff),
// for `nictuned --check`: the kernel answers a missing one only when a write is tried.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace nictune::check {

// OK when held; PermissionDenied naming the capability and what needs it when not; an error
// naming the file when CapEff cannot be read.
absl::Status CheckCapabilityHeld(int capability, const std::string& name,
                                 const std::string& needed_for);

}  // namespace nictune::check
