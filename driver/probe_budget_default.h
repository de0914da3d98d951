// SPDX-License-Identifier: Apache-2.0
// The default probe budget, one figure that the planner, the probes' options and nictuned's
// --probe_budget read.
#pragma once

namespace nictune::driver {

// 0.4% of one CPU for every BPF program together, the slots' link operations included. The
// agent's own reads take about 0.4% of a core besides, so under a drop flood its whole cost stays
// under 1% of a core (docs/benchmarks.md "The probe budget at 0.5%, 0.4% and 0.35%").
inline constexpr double kDefaultProbeBudget = 0.004;

}  // namespace nictune::driver
