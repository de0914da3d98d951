// SPDX-License-Identifier: Apache-2.0
// Registering a metric family of the figure catalog, shared by every series file of the
// exporter: the help is the catalog row's, so that it is written once.
#pragma once

#include <string>

#include "agent/metrics/figure_catalog.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

// The catalog row's help; a family the catalog lacks says so in its help, and the catalog's test
// fails on it (tests/unit/metrics_figure_catalog_test.cc).
inline std::string CatalogHelp(const std::string& name) {
  const Figure* figure = FindFigure(name);
  return figure != nullptr ? figure->help : "Not in the figure catalog.";
}

inline prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& r,
                                                              const std::string& name) {
  return prometheus::BuildCounter().Name(name).Help(CatalogHelp(name)).Register(r);
}

inline prometheus::Family<prometheus::Gauge>& GaugeFamily(prometheus::Registry& r,
                                                          const std::string& name) {
  return prometheus::BuildGauge().Name(name).Help(CatalogHelp(name)).Register(r);
}

inline prometheus::Family<prometheus::Histogram>& HistogramFamily(prometheus::Registry& r,
                                                                  const std::string& name) {
  return prometheus::BuildHistogram().Name(name).Help(CatalogHelp(name)).Register(r);
}

}  // namespace nictune::metrics
