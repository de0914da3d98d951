// SPDX-License-Identifier: Apache-2.0
// The threaded NAPI pollers' part of /metrics: each poller's CPU time, the windows' shares added
// up, so that its rate is the share of a CPU the device's polls took where /proc/stat counts them
// as system time. A poller that exits and the one that takes its instance continue one series.
#pragma once

#include "agent/metrics/swept_series.h"
#include "agent/model/window.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class NapiPollerSeries {
 public:
  explicit NapiPollerSeries(prometheus::Registry& registry);

  void Update(const model::Window& window);

 private:
  CounterSeries cpu_seconds_;
  CounterSums cpu_seconds_totals_;
};

}  // namespace nictune::metrics
