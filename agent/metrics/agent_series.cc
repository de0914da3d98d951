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
    : build_info_(GaugeFamily(r, metrics::family::kBuildInfo,
                              "1, labelled with the version of the running nictuned.")),
      cpu_seconds_(CounterFamily(r, metrics::family::kProcessCpuSecondsTotal,
                                 "User and system CPU time of nictuned (getrusage).")),
      resident_bytes_(GaugeFamily(r, metrics::family::kProcessResidentMemoryBytes,
                                  "Resident memory of nictuned (procfs /proc/self/statm).")),
      virtual_bytes_(GaugeFamily(r, metrics::family::kProcessVirtualMemoryBytes,
                                 "Virtual memory of nictuned (procfs /proc/self/statm).")),
      open_fds_(GaugeFamily(r, metrics::family::kProcessOpenFds,
                            "File descriptors nictuned holds open (procfs /proc/self/fd).")),
      max_fds_(GaugeFamily(r, metrics::family::kProcessMaxFds,
                           "nictuned's limit on open file descriptors (soft RLIMIT_NOFILE).")),
      start_time_(GaugeFamily(r, metrics::family::kProcessStartTimeSeconds,
                              "When nictuned started, in seconds since the Unix epoch (procfs "
                              "/proc/self/stat after /proc/stat btime).")),
      probe_runs_(
          CounterFamily(r, metrics::family::kBpfProgramRunsTotal,
                        "Runs of each nictune BPF program while kernel.bpf_stats_enabled was 1 "
                        "(bpf program info run_cnt).")),
      probe_run_seconds_(CounterFamily(r, metrics::family::kBpfProgramRunSecondsTotal,
                                       "Run time of each nictune BPF program while "
                                       "kernel.bpf_stats_enabled was 1 (bpf program info "
                                       "run_time_ns).")),
      sampling_seconds_(GaugeFamily(r, metrics::family::kSamplingDurationSeconds,
                                    "Time the last sample took to read every source (procfs, sysfs "
                                    "and bpf maps).")),
      source_up_(
          GaugeFamily(r, metrics::family::kSourceUp,
                      "1 when the source was read in the last sample, 0 when it failed or is "
                      "unavailable (nictuned; kind is bpf, procfs or sysfs).")) {
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
