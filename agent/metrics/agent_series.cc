#include "agent/metrics/agent_series.h"

#include <string>

#include "agent/metrics/families.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"

namespace nictune::metrics {
AgentSeries::AgentSeries(prometheus::Registry& r)
    : cpu_seconds_(CounterFamily(r, "nictune_agent_cpu_seconds_total",
                           "User and system CPU time of nictuned (getrusage).")),
      resident_bytes_(GaugeFamily(r, "nictune_agent_resident_memory_bytes",
                            "Resident memory of nictuned (procfs /proc/self/statm).")),
      probe_runs_(CounterFamily(r, "nictune_bpf_program_runs_total",
                          "Runs of each nictune BPF program while kernel.bpf_stats_enabled was 1 "
                          "(bpf program info run_cnt).")),
      probe_run_seconds_(CounterFamily(r, "nictune_bpf_program_run_seconds_total",
                                 "Run time of each nictune BPF program while "
                                 "kernel.bpf_stats_enabled was 1 (bpf program info "
                                 "run_time_ns).")),
      sampling_seconds_(GaugeFamily(r, "nictune_sampling_duration_seconds",
                              "Time the last sample took to read every source (procfs, sysfs "
                              "and bpf maps).")),
      source_up_(GaugeFamily(r, "nictune_source_up",
                       "1 when the source was read in the last sample, 0 when it failed or is "
                       "unavailable (nictuned; kind is bpf, procfs or sysfs).")) {}

void AgentSeries::Update(const AgentCost& cost, const std::vector<model::SourceState>& sources) {
  if (cost.process) {
    cpu_seconds_.Set({}, cost.process->cpu_seconds);
    resident_bytes_.Set({}, static_cast<double>(cost.process->resident_bytes));
  }
  cpu_seconds_.Sweep();
  resident_bytes_.Sweep();
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
