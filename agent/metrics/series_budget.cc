// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/series_budget.h"

#include <algorithm>
#include <optional>

#include "agent/metrics/knob_value_unit.h"
#include "tuner/knob.h"

namespace nictune::metrics {
namespace {

// The targets of the knobs (of the unit `only`, when given): a host knob once, a device knob on
// each device and emulated NIC, and on each NAPI instance too where napi-set sets it. Socket
// advice is never exported.
size_t KnobTargets(const HostShape& shape, std::optional<KnobValueUnit> only) {
  size_t targets = 0;
  for (const tuner::Knob knob : tuner::kAllKnobs) {
    if (knob == tuner::Knob::kSoRcvbuf || (only && ValueUnitOf(knob) != *only)) continue;
    const size_t devices = shape.devices + shape.emulated_nics;
    targets += tuner::ActsOnHost(knob)   ? 1
               : tuner::SetPerNapi(knob) ? devices + shape.napis
                                         : devices;
  }
  return targets;
}

// How many values a label takes on a host of this shape, given the labels before it.
size_t ValuesOf(const FigureLabel& label, const HostShape& shape, const SeriesOptions& options) {
  switch (label.bound) {
    case LabelBound::kFixedSet:
      return label.fixed_values;
    case LabelBound::kFollows:
      return 1;
    case LabelBound::kCpusIfPerCpu:
      return options.per_cpu ? shape.cpus : 1;
    case LabelBound::kCpusIfInterruptsPerCpu:
      return options.interrupts_per_cpu ? shape.cpus : 1;
    case LabelBound::kIrqs:
      return shape.irqs;
    case LabelBound::kDevices:
      return shape.devices;
    case LabelBound::kDevicesAndOtherNamespaces:
      return shape.devices + 1;
    case LabelBound::kNapis:
      return shape.napis + 1;  // and every other namespace's as one
    case LabelBound::kNapiPollers:
      return shape.napis + shape.emulated_nics + 1;
    case LabelBound::kTopSockets:
      return options.max_sockets;
    case LabelBound::kDropReasons:
      return shape.drop_reasons;
    case LabelBound::kDropAttributions:
      // Each protocol on an own device, on none and on other_namespaces; the map-full drops and
      // those only the kernel counted.
      return kDropProtocols * (shape.devices + 2) + 2;
    case LabelBound::kKnobTargets:
      return KnobTargets(shape, label.knob_unit);
    case LabelBound::kEmulatedNics:
      return shape.emulated_nics;
  }
  return 0;
}

// The family's series: its labels' product, within its cap.
size_t SeriesOf(const Figure& figure, const HostShape& shape, const SeriesOptions& options) {
  size_t series = 1;
  for (const FigureLabel& label : figure.labels) series *= ValuesOf(label, shape, options);
  switch (figure.cap) {
    case SeriesCap::kNone:
      return series;
    case SeriesCap::kMaxDropSeries:
      return std::min(series, options.max_drop_series + 1);  // and the overflow series
  }
  return series;
}

}  // namespace

size_t SeriesBudget::Of(const std::string& sample_name) const {
  const auto it = per_family.find(sample_name);
  return it != per_family.end() ? it->second : 0;
}

SeriesBudget BudgetFor(const HostShape& shape, const SeriesOptions& options) {
  SeriesBudget budget;
  const auto add = [&budget](const std::string& sample_name, size_t series) {
    budget.per_family[sample_name] += series;
    budget.total += series;
  };
  for (const Figure& figure : FigureCatalog()) {
    const size_t series = SeriesOf(figure, shape, options);
    if (figure.kind != FigureKind::kHistogram) {
      add(figure.name, series);
      continue;
    }
    add(figure.name + "_bucket", series * (figure.boundaries.size() + 1));  // and +Inf
    add(figure.name + "_sum", series);
    add(figure.name + "_count", series);
  }
  return budget;
}

}  // namespace nictune::metrics
