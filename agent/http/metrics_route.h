// SPDX-License-Identifier: Apache-2.0
// GET /metrics: the exporter's text exposition.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/metrics/exporter.h"

namespace nictune::http {

// The exporter must outlive the router.
absl::Status AddMetricsRoute(Router& router, const metrics::MetricsExporter& exporter);

}  // namespace nictune::http
