// SPDX-License-Identifier: Apache-2.0
// Per-device software interrupt deferral, read from sysfs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/observation.h"

namespace nictune::observe {

// Reads SYS_ROOT/class/net/DEV/napi_defer_hard_irqs and gro_flush_timeout. A kernel or device
// without them (files missing) gives DeferState{supported = false}; a file that exists but
// cannot be read or parsed is an error naming it.
absl::StatusOr<tuner::DeferState> ReadDeferState(const std::string& sys_root,
                                                 const std::string& device);

// The same for each device; devices whose files could not be read are left out and their
// errors returned in `errors` (one device must not hide the others).
struct DeferReading {
  std::map<std::string, tuner::DeferState> states;
  std::vector<std::string> errors;
};
DeferReading ReadDeferStates(const std::string& sys_root, const std::vector<std::string>& devices);

}  // namespace nictune::observe
