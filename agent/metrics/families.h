// SPDX-License-Identifier: Apache-2.0
// Registering a metric family by name and help, shared by every series file of the exporter.
#pragma once

#include <string>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

inline prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& r,
                                                              const std::string& name,
                                                              const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

inline prometheus::Family<prometheus::Gauge>& GaugeFamily(prometheus::Registry& r,
                                                          const std::string& name,
                                                          const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r);
}

inline prometheus::Family<prometheus::Histogram>& HistogramFamily(prometheus::Registry& r,
                                                                  const std::string& name,
                                                                  const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r);
}

}  // namespace nictune::metrics
