// SPDX-License-Identifier: Apache-2.0
// The tuner's discrete-event simulator: packets arrive, wait in the NIC rx ring, an interrupt
// fires as the moderation scheme decides, NAPI polls move packets into a socket with truesize
// accounting, and an application drains it. Deterministic: the same scenario (seed included)
// gives the same result. Pure: no I/O, no clock.
#pragma once

#include "absl/status/statusor.h"
#include "tuner/sim_result.h"
#include "tuner/sim_scenario.h"

namespace nictune::tuner {

// Runs scenario.duration_ns of simulated time. InvalidArgument (naming the field) when the
// scenario is invalid.
absl::StatusOr<SimResult> Simulate(const SimScenario& scenario);

}  // namespace nictune::tuner
