// SPDX-License-Identifier: Apache-2.0
// What the mutating REST routes (POST /api/v1/apply, rollback, restore) ask of the service's
// tuning: a small interface so that the routes' contract tests put a fake in its place.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/actuate/actuation_result.h"
#include "agent/actuate/control_step.h"
#include "agent/service/mode.h"
#include "driver/knobs/knob_access.h"

namespace nictune::service {

class TuningControl {
 public:
  virtual ~TuningControl() = default;

  virtual Mode mode() const = 0;

  // One controller step now over the latest window's recommendations (only the one naming `only`,
  // when given), with the controller's usual bounds and guard. FailedPrecondition outside apply
  // mode or before the first tuner window; NotFound when no recommendation names `only`.
  virtual absl::StatusOr<actuate::ControlStepSummary> ApplyNow(
      const std::optional<driver::knobs::KnobAddress>& only, absl::Time now) = 0;

  // Puts back the original of the knob a pending change of this boot wrote. NotFound when no
  // pending change has that id (unknown, or already closed).
  virtual absl::StatusOr<actuate::ActuationResult> RollbackChange(int64_t change_id,
                                                                  absl::Time now) = 0;

  // Puts back the original of one knob.
  virtual actuate::ActuationResult RollbackKnob(const driver::knobs::KnobAddress& address,
                                                absl::Time now) = 0;

  // Every original of this boot (allowed in any mode: it only puts originals back).
  virtual actuate::RestoreReport RestoreAll(absl::Time now) = 0;
};

}  // namespace nictune::service
