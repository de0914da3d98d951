// SPDX-License-Identifier: Apache-2.0
// The latest state of the service, shared between the sampling loop (the only writer) and the HTTP
// handlers (readers). Readers take a copy or a shared_ptr under a short lock, so a slow client
// never holds anything the sampling loop waits for.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "agent/model/window.h"
#include "agent/observe/socket_placement.h"
#include "agent/service/service_status.h"
#include "agent/topology.h"
#include "nlohmann/json.hpp"

namespace nictune::service {

// The latest interval as the sampling loop measured it. Its JSON report is made only when a
// reader asks: most intervals are never requested.
struct IntervalReading {
  model::Window window;
  agent::Topology topology;
  observe::SocketDevices socket_devices;  // of the window's sockets, by cookie
};

class ServiceState {
 public:
  explicit ServiceState(ServiceConfig config);

  // Readers.
  ServiceStatus Status() const;
  // Its config alone, without copying the sources' and programs' states.
  ServiceConfig Config() const;
  // The latest interval's window report (agent/window_report.h); null before the first interval.
  // Built by the first reader after each interval, outside the lock, and kept for the next ones.
  std::shared_ptr<const nlohmann::json> LatestReport() const;
  std::shared_ptr<const RecommendationSet> Recommendations() const;

  // Writers (the sampling loop, the reload handler).
  void SetConfig(const ServiceConfig& config);
  void SetBpf(BpfHealth bpf);
  // The programs' attached state after the per-packet probes were switched.
  void SetBpfPrograms(std::vector<driver::ProbeStatus> programs);
  void SetStorePath(const std::string& path);
  void SetOtherTuners(absl::StatusOr<std::vector<observe::OtherTuner>> tuners);
  void SetKnobChanges(std::vector<KnobChange> latest, uint64_t total);
  void SetHeld(std::vector<HeldChange> held);
  void PublishInterval(std::shared_ptr<const IntervalReading> interval, SamplingHealth sampling);
  void UpdateSampling(const SamplingHealth& sampling);
  // A store operation's outcome: counts failures and keeps the latest error.
  void NoteStoreResult(const absl::Status& status, absl::Time now);
  void PublishRecommendations(std::shared_ptr<const RecommendationSet> recommendations);

 private:
  mutable std::mutex mutex_;
  ServiceStatus status_;
  std::shared_ptr<const IntervalReading> interval_;
  mutable std::shared_ptr<const nlohmann::json> report_;  // of interval_, once a reader asked
  std::shared_ptr<const RecommendationSet> recommendations_;
};

}  // namespace nictune::service
