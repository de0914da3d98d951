// SPDX-License-Identifier: Apache-2.0
// The probe budget on /metrics (driver/bpf/README.md "The probe budget"): the budget and what its
// plan costs, and per hook the share of the last interval its programs were attached (1: every
// event seen, below 1: the BPF figures of that hook are estimates scaled from a sample), how long
// in all, the events it saw and what one costs.
#pragma once

#include "agent/metrics/swept_series.h"
#include "agent/model/snapshot.h"
#include "agent/model/window.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class ProbeSeries {
 public:
  explicit ProbeSeries(prometheus::Registry& registry);
  void Update(const model::Snapshot& snapshot, const model::Window& window);

 private:
  GaugeSeries budget_;
  GaugeSeries planned_;
  GaugeSeries over_budget_;
  CounterSeries calibrations_;
  GaugeSeries coverage_;
  CounterSeries attached_seconds_;
  CounterSeries events_;
  CounterSeries slots_;
  CounterSeries link_cpu_seconds_;
  GaugeSeries cost_;
};

}  // namespace nictune::metrics
