// SPDX-License-Identifier: Apache-2.0
// The actuator's results as JSON for the mutating routes (apply, rollback, restore), and the
// {"knob", "target"} body they share.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "agent/actuate/actuation_result.h"
#include "agent/actuate/control_step.h"
#include "driver/knobs/knob_access.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

nlohmann::json ActuationResultJson(const actuate::ActuationResult& result);
nlohmann::json ControlStepJson(const actuate::ControlStepSummary& summary);
// A change the controller held back: knob, target, recommended, cause, reason.
nlohmann::json HeldJson(const tuner::Held& held);
nlohmann::json RestoreReportJson(const actuate::RestoreReport& report);

// {"knob": "rx_usecs", "target": "eth0"} -> the address. InvalidArgument naming the field when
// one is missing, not a string, or the knob is unknown.
absl::StatusOr<driver::knobs::KnobAddress> KnobAddressFromJson(const nlohmann::json& body);

}  // namespace nictune::http
