// SPDX-License-Identifier: Apache-2.0
// The probe budget the privileged slotting tests' floods are sized for. They test how the budget
// slots hooks (how many slots, which hooks share one, what the slots' figures scale to), and
// their floods last a few seconds: at the default 0.4% such a flood can see no slot start at all.
// The default's own figures are benchmarks (docs/benchmarks.md "Agent cost").
#pragma once

#include "driver/probe_source.h"

namespace nictune::testing_support {

inline driver::ProbeOptions FloodBudgetProbeOptions() {
  driver::ProbeOptions options;
  options.budget_cpu_share = 0.005;  // half a percent of one CPU
  return options;
}

}  // namespace nictune::testing_support
