#include "agent/metrics/exporter.h"

#include <sstream>

#include "prometheus/text_serializer.h"

namespace nictune::metrics {

MetricsExporter::MetricsExporter(ExporterOptions options)
    : registry_(std::make_shared<prometheus::Registry>()),
      procfs_(*registry_),
      bpf_(*registry_, options.max_sockets),
      emulated_nics_(*registry_),
      agent_(*registry_) {}

void MetricsExporter::Update(const model::Snapshot& latest, const model::Window& window,
                             const AgentCost& cost) {
  std::lock_guard lock(mutex_);
  procfs_.Update(latest);
  bpf_.Update(latest, window);
  emulated_nics_.Update(latest);
  agent_.Update(cost, latest.sources);
}

std::string MetricsExporter::Text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace nictune::metrics
