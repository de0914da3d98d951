// The latest state of the service, shared between the sampling loop (the only writer) and the HTTP
// handlers (readers). Readers take a copy or a shared_ptr under a short lock, so a slow client
// never holds anything the sampling loop waits for.
#pragma once

#include <memory>
#include <mutex>

#include "agent/service/service_status.h"
#include "nlohmann/json.hpp"

namespace nictune::service {

class ServiceState {
 public:
  explicit ServiceState(ServiceConfig config);

  // Readers.
  ServiceStatus Status() const;
  // The latest interval's window report (agent/window_report.h); null before the first interval.
  std::shared_ptr<const nlohmann::json> LatestReport() const;
  std::shared_ptr<const RecommendationSet> Recommendations() const;

  // Writers (the sampling loop, the reload handler).
  void SetConfig(const ServiceConfig& config);
  void SetBpf(BpfHealth bpf);
  void SetStorePath(const std::string& path);
  void PublishInterval(std::shared_ptr<const nlohmann::json> report, SamplingHealth sampling);
  void UpdateSampling(const SamplingHealth& sampling);
  // A store operation's outcome: counts failures and keeps the latest error.
  void NoteStoreResult(const absl::Status& status, absl::Time now);
  void PublishRecommendations(std::shared_ptr<const RecommendationSet> recommendations);

 private:
  mutable std::mutex mutex_;
  ServiceStatus status_;
  std::shared_ptr<const nlohmann::json> report_;
  std::shared_ptr<const RecommendationSet> recommendations_;
};

}  // namespace nictune::service
