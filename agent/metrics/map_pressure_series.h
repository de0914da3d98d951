// SPDX-License-Identifier: Apache-2.0
// Map pressure on /metrics (driver/bpf/README.md "Bounded maps"): per BPF hash map, the keys it
// holds, its capacity, the events that found it full (counted elsewhere, never lost) and the idle
// keys pruned from it.
#pragma once

#include "agent/metrics/swept_series.h"
#include "agent/model/snapshot.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class MapPressureSeries {
 public:
  explicit MapPressureSeries(prometheus::Registry& registry);
  void Update(const model::Snapshot& snapshot);

 private:
  GaugeSeries entries_;
  GaugeSeries capacity_;
  CounterSeries no_room_;
  CounterSeries pruned_;
};

}  // namespace nictune::metrics
