// SPDX-License-Identifier: Apache-2.0
#include "agent/http/metrics_route.h"

namespace nictune::http {

absl::Status AddMetricsRoute(Router& router, const metrics::MetricsExporter& exporter) {
  return router.Add("GET", "/metrics", Effect::kReadsOnly, [&exporter](const Request&) {
    return Response{
        .status = 200, .content_type = metrics::kMetricsContentType, .body = exporter.Text()};
  });
}

}  // namespace nictune::http
