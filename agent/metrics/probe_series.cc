// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/probe_series.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::metrics {

ProbeSeries::ProbeSeries(prometheus::Registry& r)
    : budget_(GaugeFamily(r, metrics::family::kProbeBudgetCpuRatio)),
      planned_(GaugeFamily(r, metrics::family::kProbePlannedCpuRatio)),
      over_budget_(GaugeFamily(r, metrics::family::kProbeOverBudget)),
      calibrations_(CounterFamily(r, metrics::family::kProbeCalibrationsTotal)),
      coverage_(GaugeFamily(r, metrics::family::kProbeCoverageRatio)),
      attached_seconds_(CounterFamily(r, metrics::family::kProbeAttachedSecondsTotal)),
      events_(CounterFamily(r, metrics::family::kProbeEventsTotal)),
      slots_(CounterFamily(r, metrics::family::kProbeSlotsTotal)),
      link_cpu_seconds_(CounterFamily(r, metrics::family::kProbeLinkCpuSecondsTotal)),
      cost_(GaugeFamily(r, metrics::family::kProbeCostSecondsPerEvent)) {}

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
