// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/napi_poller_series.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/label_values.h"

namespace nictune::metrics {

NapiPollerSeries::NapiPollerSeries(prometheus::Registry& r)
    : cpu_seconds_(CounterFamily(r, metrics::family::kNapiPollerCpuSecondsTotal)) {}

void NapiPollerSeries::Update(const model::Window& window) {
  for (const model::NapiPollerWindow& p : window.napi_pollers) {
    cpu_seconds_totals_.Add(NapiPollerLabels(p.poller), p.cpu_share * window.seconds);
  }
  cpu_seconds_totals_.PublishTo(cpu_seconds_);
}

}  // namespace nictune::metrics
