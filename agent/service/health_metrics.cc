// SPDX-License-Identifier: Apache-2.0
#include "agent/service/health_metrics.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::service {

HealthMetrics::HealthMetrics(prometheus::Registry& registry)
    : samples_(metrics::CounterFamily(registry, metrics::family::kSamplesTotal)
                   .Add({})),
      failed_samples_(metrics::CounterFamily(registry, metrics::family::kSampleFailuresTotal)
                          .Add({})),
      missed_intervals_(metrics::CounterFamily(registry, metrics::family::kMissedIntervalsTotal)
                            .Add({})),
      windows_(metrics::CounterFamily(registry, metrics::family::kTunerWindowsTotal)
                   .Add({})),
      store_errors_(metrics::CounterFamily(registry, metrics::family::kStoreErrorsTotal)
                        .Add({})),
      store_healthy_(metrics::GaugeFamily(registry, metrics::family::kStoreHealthy)
                         .Add({})),
      recommendations_(metrics::GaugeFamily(registry, metrics::family::kRecommendations)
                           .Add({})),
      interval_seconds_(metrics::GaugeFamily(registry, metrics::family::kSamplingIntervalSeconds)
                            .Add({})) {}

void HealthMetrics::Advance(prometheus::Counter& counter, uint64_t total) {
  const double now = static_cast<double>(total);
  if (now > counter.Value()) counter.Increment(now - counter.Value());
}

void HealthMetrics::Update(const ServiceStatus& status, size_t recommendations) {
  Advance(samples_, status.sampling.samples);
  Advance(failed_samples_, status.sampling.failed_samples);
  Advance(missed_intervals_, status.sampling.missed_intervals);
  Advance(windows_, status.sampling.windows);
  Advance(store_errors_, status.store.errors);
  store_healthy_.Set(status.store.configured && status.store.healthy ? 1 : 0);
  recommendations_.Set(static_cast<double>(recommendations));
  interval_seconds_.Set(absl::ToDoubleSeconds(status.config.interval));
}

}  // namespace nictune::service
