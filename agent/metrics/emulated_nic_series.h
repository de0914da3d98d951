// SPDX-License-Identifier: Apache-2.0
// The emulated NICs' part of /metrics (--emulated_nic, driver/emulated): their own cumulative
// counters from each snapshot, the interrupt count a TAP's /proc/interrupts line would have held.
#pragma once

#include "agent/metrics/swept_series.h"
#include "agent/model/snapshot.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class EmulatedNicSeries {
 public:
  explicit EmulatedNicSeries(prometheus::Registry& registry);

  void Update(const model::Snapshot& snapshot);

 private:
  CounterSeries interrupts_;
  CounterSeries delivered_;
  CounterSeries missed_;
};

}  // namespace nictune::metrics
