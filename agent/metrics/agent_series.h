// SPDX-License-Identifier: Apache-2.0
// The agent's own part of /metrics: its build, what nictuned costs (the standard process_* series,
// BPF run time, sampling time) and which sources it is reading.
#pragma once

#include <optional>
#include <vector>

#include "agent/metrics/process_usage.h"
#include "agent/metrics/swept_series.h"
#include "agent/model/source.h"
#include "driver/probe_source.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

struct AgentCost {
  std::optional<ProcessUsage> process;    // absent when it could not be read
  std::vector<driver::ProbeCost> probes;  // ProbeSource::Cost(); empty without BPF
  double sampling_seconds = 0;            // how long the last snapshot took to collect
};

class AgentSeries {
 public:
  explicit AgentSeries(prometheus::Registry& registry);

  void Update(const AgentCost& cost, const std::vector<model::SourceState>& sources);

 private:
  GaugeSeries build_info_;
  CounterSeries cpu_seconds_;
  GaugeSeries resident_bytes_;
  GaugeSeries virtual_bytes_;
  GaugeSeries open_fds_;
  GaugeSeries max_fds_;
  GaugeSeries start_time_;
  CounterSeries probe_runs_;
  CounterSeries probe_run_seconds_;
  GaugeSeries sampling_seconds_;
  GaugeSeries source_up_;
};

}  // namespace nictune::metrics
