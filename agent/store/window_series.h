// SPDX-License-Identifier: Apache-2.0
// A Window as the series the store keeps, named as /metrics names them (agent/metrics,
// docs/design.md "Metrics and history") so that history and Prometheus can be read side by side.
// For a counter (`_total`) the value is its rate per second over the window, what rate() gives in
// Prometheus (a `_seconds_total` rate is a share of one CPU); gauges are stored as they were.
// Labels are the ones the window keeps: where it sums over a label /metrics has (a handler's time
// over CPUs), that label is absent.
#pragma once

#include <cstddef>
#include <vector>

#include "agent/metrics/series_options.h"
#include "agent/model/window.h"
#include "agent/store/records.h"

namespace nictune::store {

// The same bounds as /metrics: a host with thousands of sockets or irqs must not make thousands
// of series.
using WindowSeriesOptions = metrics::SeriesOptions;

std::vector<SeriesSample> WindowSeries(const model::Window& window,
                                       const WindowSeriesOptions& options = {});

}  // namespace nictune::store
