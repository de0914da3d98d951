// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/probe_series.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::metrics {

ProbeSeries::ProbeSeries(prometheus::Registry& r)
    : budget_(GaugeFamily(r, metrics::family::kProbeBudgetCpuRatio,
                          "The probe budget: the share of one CPU every BPF program together may "
                          "use (--probe_budget; 0: no limit).")),
      planned_(GaugeFamily(r, metrics::family::kProbePlannedCpuRatio,
                           "What the probe budget's current plan costs, as a share of one CPU "
                           "(the slots' link operations included).")),
      over_budget_(GaugeFamily(r, metrics::family::kProbeOverBudget,
                               "1 while even the shortest slots cost more than the budget.")),
      calibrations_(CounterFamily(r, metrics::family::kProbeCalibrationsTotal,
                                  "Windows run with the kernel's BPF statistics on, to measure "
                                  "each hook's cost per event.")),
      coverage_(GaugeFamily(r, metrics::family::kProbeCoverageRatio,
                            "Share of the last interval the hook's programs were attached: 1 "
                            "when its figures saw every event, less when they are estimates "
                            "scaled from a sample.")),
      attached_seconds_(CounterFamily(r, metrics::family::kProbeAttachedSecondsTotal,
                                      "Time the hook's programs were attached.")),
      events_(CounterFamily(r, metrics::family::kProbeEventsTotal,
                            "Events the hook's programs saw while attached.")),
      slots_(CounterFamily(r, metrics::family::kProbeSlotsTotal,
                           "Times the hook began to measure: its slots (by links or by its "
                           "gate) and its returns to whole.")),
      link_cpu_seconds_(CounterFamily(
          r, metrics::family::kProbeLinkCpuSecondsTotal,
          "CPU time the agent spent attaching and detaching the hook's programs for its slots "
          "(the kernel patches the tracepoint and waits for every CPU).")),
      cost_(GaugeFamily(r, metrics::family::kProbeCostSecondsPerEvent,
                        "What one event of the hook costs, dispatch and program (measured on "
                        "this host once calibrated).")) {}

void ProbeSeries::Update(const model::Snapshot& snapshot, const model::Window& window) {
  if (window.probe_budget) {
    budget_.Set({}, window.probe_budget->cpu_share);
    planned_.Set({}, window.probe_budget->planned_cpu_share);
    over_budget_.Set({}, window.probe_budget->over_budget ? 1 : 0);
  }
  for (const model::ProbeWindow& probe : window.probes) {
    coverage_.Set({{"hook", probe.hook}}, probe.coverage);
    cost_.Set({{"hook", probe.hook}}, probe.cost_ns_per_event / 1e9);
  }
  if (snapshot.bpf) {
    calibrations_.Set({}, static_cast<double>(snapshot.bpf->budget.calibrations));
    for (const driver::HookDuty& duty : snapshot.bpf->hooks) {
      attached_seconds_.Set({{"hook", duty.hook}}, static_cast<double>(duty.attached_ns) / 1e9);
      events_.Set({{"hook", duty.hook}}, static_cast<double>(duty.events));
      slots_.Set({{"hook", duty.hook}}, static_cast<double>(duty.slots));
      link_cpu_seconds_.Set({{"hook", duty.hook}}, static_cast<double>(duty.link_cpu_ns) / 1e9);
    }
  }
  for (auto* series : {&budget_, &planned_, &over_budget_, &coverage_, &cost_}) series->Sweep();
  calibrations_.Sweep();
  attached_seconds_.Sweep();
  events_.Sweep();
  slots_.Sweep();
  link_cpu_seconds_.Sweep();
}

}  // namespace nictune::metrics
