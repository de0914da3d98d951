// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/agent_series.h"

#include <string>

#include "agent/build_info.h"
#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"

namespace nictune::metrics {
AgentSeries::AgentSeries(prometheus::Registry& r)
    : build_info_(GaugeFamily(r, metrics::family::kBuildInfo)),
      cpu_seconds_(CounterFamily(r, metrics::family::kProcessCpuSecondsTotal)),
      resident_bytes_(GaugeFamily(r, metrics::family::kProcessResidentMemoryBytes)),
      virtual_bytes_(GaugeFamily(r, metrics::family::kProcessVirtualMemoryBytes)),
      open_fds_(GaugeFamily(r, metrics::family::kProcessOpenFds)),
      max_fds_(GaugeFamily(r, metrics::family::kProcessMaxFds)),
      start_time_(GaugeFamily(r, metrics::family::kProcessStartTimeSeconds)),
      probe_runs_(CounterFamily(r, metrics::family::kBpfProgramRunsTotal)),
      probe_run_seconds_(CounterFamily(r, metrics::family::kBpfProgramRunSecondsTotal)),
      sampling_seconds_(GaugeFamily(r, metrics::family::kSamplingDurationSeconds)),
      source_up_(GaugeFamily(r, metrics::family::kSourceUp)) {
  build_info_.Set({{"version", std::string(agent::Version())}}, 1);
  if (absl::StatusOr<double> started = ReadProcessStartTime(); started.ok()) {
    start_time_.Set({}, *started);
  }
}

void AgentSeries::Update(const AgentCost& cost, const std::vector<model::SourceState>& sources) {
  if (cost.process) {
    cpu_seconds_.Set({}, cost.process->cpu_seconds);
    resident_bytes_.Set({}, static_cast<double>(cost.process->resident_bytes));
    virtual_bytes_.Set({}, static_cast<double>(cost.process->virtual_bytes));
    if (cost.process->open_fds) open_fds_.Set({}, static_cast<double>(*cost.process->open_fds));
    max_fds_.Set({}, static_cast<double>(cost.process->max_fds));
  }
  for (GaugeSeries* series : {&resident_bytes_, &virtual_bytes_, &open_fds_, &max_fds_}) {
    series->Sweep();
  }
  cpu_seconds_.Sweep();
  for (const auto& p : cost.probes) {
    probe_runs_.Set({{"program", p.name}}, static_cast<double>(p.run_cnt));
    probe_run_seconds_.Set({{"program", p.name}}, static_cast<double>(p.run_time_ns) / 1e9);
  }
  probe_runs_.Sweep();
  probe_run_seconds_.Sweep();
  sampling_seconds_.Set({}, cost.sampling_seconds);
  sampling_seconds_.Sweep();
  for (const auto& s : sources) {
    source_up_.Set({{"source", s.name}, {"kind", std::string(model::SourceName(s.source))}},
                   s.in_use ? 1.0 : 0.0);
  }
  source_up_.Sweep();
}

}  // namespace nictune::metrics
