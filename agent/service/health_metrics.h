// SPDX-License-Identifier: Apache-2.0
// The service's own health on /metrics: sampling cadence, tuner windows and the store's health, so
// an alert can fire on a full disk or a stalled loop without reading the REST status.
#pragma once

#include <cstddef>

#include "agent/service/service_status.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace nictune::service {

class HealthMetrics {
 public:
  explicit HealthMetrics(prometheus::Registry& registry);

  void Update(const ServiceStatus& status, size_t recommendations);

 private:
  // Counters only go up: each Update adds the difference to the status' running totals.
  static void Advance(prometheus::Counter& counter, uint64_t total);

  prometheus::Counter& samples_;
  prometheus::Counter& failed_samples_;
  prometheus::Counter& missed_intervals_;
  prometheus::Counter& windows_;
  prometheus::Counter& store_errors_;
  prometheus::Gauge& store_healthy_;
  prometheus::Gauge& recommendations_;
  prometheus::Gauge& interval_seconds_;
};

}  // namespace nictune::service
