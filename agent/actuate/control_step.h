// SPDX-License-Identifier: Apache-2.0
// One apply-mode controller step for the service: read the knobs, let the controller decide, carry
// out its actions through the actuator and tell the controller which writes failed.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "agent/actuate/actuation_result.h"
#include "agent/actuate/actuator.h"
#include "driver/knobs/knob_access.h"
#include "tuner/controller.h"
#include "tuner/controller_action.h"
#include "tuner/recommendation.h"

namespace nictune::actuate {

struct UnreadableKnob {
  driver::knobs::KnobAddress address;
  absl::Status status;  // Unimplemented for an unsupported knob
};

// What the step saw and did, for the log, status and /api/v1/changes.
struct ControlStepSummary {
  absl::Time at;
  std::vector<tuner::KnobReading> readings;
  std::vector<UnreadableKnob> unreadable;            // left out of the controller's readings
  std::vector<driver::knobs::KnobAddress> verified;  // guard window passed: change kept
  std::vector<tuner::Action> actions;                // what the controller asked for
  std::vector<ActuationResult> results;              // one per action, in the same order
  std::vector<tuner::Held> held;  // recommended changes the controller did not make, and why
  // Knobs we held a value in whose device went away this step (Actuator::ReleaseGone); the
  // controller forgot its write of each (Controller::WriteFailed).
  std::vector<ActuationResult> gone;
  int writes_failed = 0;  // reported to Controller::WriteFailed
  // Applies not made because the journal could not record the original (a full disk): the
  // controller forgot them (Controller::WriteNotMade) and asks again next window. The first error.
  int not_journaled = 0;
  absl::Status journal_error;
};

// The knobs read are those the recommendations name (socket buffers are advice only, never
// written) and those the actuator holds a value in, so a guard window can always see its knob.
ControlStepSummary RunControlStep(Actuator& actuator, tuner::Controller& controller,
                                  const std::vector<tuner::Recommendation>& recommendations,
                                  const tuner::ScopedHealth& health, absl::Time now);

// One line per step for the log: "control step: 3 knobs read, 1 actions, 1 held, 0 verified, 0
// writes failed; rx_usecs eth0 applied: ...; rx_frames eth0: 0 -> 64 held: confidence ...".
std::string DescribeControlStep(const ControlStepSummary& summary);

}  // namespace nictune::actuate
