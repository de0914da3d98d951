// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/exporter.h"

#include <sstream>

#include "driver/kernel_name.h"
#include "prometheus/text_serializer.h"

namespace nictune::metrics {

MetricsExporter::MetricsExporter(SeriesOptions options)
    : registry_(std::make_shared<prometheus::Registry>()),
      procfs_(*registry_, options),
      bpf_(*registry_, options),
      probes_(*registry_),
      maps_(*registry_),
      sockets_(*registry_, options.max_sockets),
      emulated_nics_(*registry_),
      napi_pollers_(*registry_),
      agent_(*registry_) {}

void MetricsExporter::Update(const model::Snapshot& latest, const model::Window& window,
                             const AgentCost& cost) {
  std::lock_guard lock(mutex_);
  procfs_.Update(latest);
  bpf_.Update(latest, window);
  probes_.Update(latest, window);
  maps_.Update(latest);
  sockets_.Update(latest);
  emulated_nics_.Update(latest);
  napi_pollers_.Update(window);
  agent_.Update(cost, latest.sources);
}

std::string MetricsExporter::Text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  // Label values are kernel-name text already; this guards the scrape as a whole, since
  // Prometheus refuses every sample of a scrape that is not valid UTF-8.
  std::string text = std::move(out).str();
  if (!driver::IsValidUtf8(text)) text = driver::ReplaceInvalidUtf8(text);
  return text;
}

}  // namespace nictune::metrics
