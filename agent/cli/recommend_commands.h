// SPDX-License-Identifier: Apache-2.0
// `nictune recommend --as=shell|sysctl.d`: the recommended changes as what a person runs to make
// them by hand (driver/knobs/knob_commands.h), so that advice can be carried out without apply
// mode, reviewed, or kept in configuration management.
#pragma once

#include <string>

#include "nlohmann/json_fwd.hpp"

namespace nictune::cli {

// One shell line per change (knobs already at their recommendation are left out), each after a
// comment naming the knob, target and change.
std::string RenderRecommendationsAsShell(const nlohmann::json& recommendations);

// The host sysctls among the changes as a sysctl.d file; the other knobs as comments saying why
// they are not in it.
std::string RenderRecommendationsAsSysctlConf(const nlohmann::json& recommendations);

}  // namespace nictune::cli
