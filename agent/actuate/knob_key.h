// SPDX-License-Identifier: Apache-2.0
// How the actuator names a knob on a target: the journal stores the knob's name and its target as
// text, and the actuator keys its memory of each knob by both.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "driver/knobs/knob_access.h"
#include "tuner/knob.h"

namespace nictune::actuate {

// "rx_usecs@eth0": unique per knob and target.
std::string KnobKey(const driver::knobs::KnobAddress& address);

// "rx_usecs eth0": how log lines and results name the knob.
std::string DescribeKnob(const driver::knobs::KnobAddress& address);

// The inverse of tuner::KnobName; nullopt for a name this binary does not know.
std::optional<tuner::Knob> ParseKnobName(absl::string_view name);

}  // namespace nictune::actuate
