// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_sweep.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {

absl::StatusOr<SweepResult> SweepRxUsecs(const SimScenario& base, int64_t lo, int64_t hi,
                                         int64_t step) {
  if (lo < 0 || hi < lo || step <= 0 || (hi - lo) / step >= 10000) {
    return absl::InvalidArgumentError(absl::StrCat("rx-usecs sweep: range [", lo, ", ", hi,
                                                   "] step ", step,
                                                   " must be non-empty, >= 0, <= 10000 points"));
  }
  SweepResult out;
  SimScenario scenario = base;
  scenario.moderation.kind = ModerationKind::kStatic;
  for (int64_t usecs = lo; usecs <= hi; usecs += step) {
    scenario.moderation.fixed.rx_usecs = usecs;
    absl::StatusOr<SimResult> run = Simulate(scenario);
    if (!run.ok()) {
      return absl::Status(run.status().code(),
                          absl::StrCat("rx-usecs sweep at ", usecs, ": ", run.status().message()));
    }
    SweepPoint point{usecs, run->interrupts_per_s, run->ring_drops + run->socket_drops};
    out.points.push_back(point);
    if (point.drops == 0 && (!out.best || point.interrupts_per_s < out.best->interrupts_per_s)) {
      out.best = point;
    }
  }
  return out;
}

}  // namespace nictune::tuner
