// SPDX-License-Identifier: Apache-2.0
// `nictune recommend --as=ethtool|sysctl|tuned`: the recommended changes as what a person runs
// to make them by hand, a sysctl.d file or a tuned profile (driver/knobs/knob_commands.h), so that
// advice can be carried out without apply mode, reviewed, or kept in configuration management.
#pragma once

#include <string>

#include "nlohmann/json_fwd.hpp"

namespace nictune::cli {

// One shell line per change (knobs already at their recommendation are left out), each after a
// comment naming the knob, target and change. A device the agent lists in `emulated_nics` gets
// its control socket's command for the knobs the emulated NIC holds (a TAP refuses ethtool -C).
std::string RenderRecommendationsAsShell(const nlohmann::json& recommendations);

// The host sysctls among the changes as a sysctl.d file; the other knobs as comments saying why
// they are not in it.
std::string RenderRecommendationsAsSysctlConf(const nlohmann::json& recommendations);

// The changes as a tuned profile (tuned.conf): host sysctls in [sysctl], each device's
// coalescing in a [net] instance's coalesce= option, sysfs knobs in [sysfs]; what a profile
// cannot hold as comments saying why.
std::string RenderRecommendationsAsTunedProfile(const nlohmann::json& recommendations);

}  // namespace nictune::cli
