// SPDX-License-Identifier: Apache-2.0
#include "agent/service/service_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/window_report.h"

namespace nictune::service {

ServiceState::ServiceState(ServiceConfig config)
    : recommendations_(std::make_shared<const RecommendationSet>(RecommendationSet{
          .reason = absl::StrCat("no tuner window has closed yet: the first closes one window (",
                                 absl::FormatDuration(config.window),
                                 ", --window) after the agent started")})) {
  status_.config = std::move(config);
  if (!RunsTuner(status_.config.mode)) {
    recommendations_ = std::make_shared<const RecommendationSet>(
        RecommendationSet{.reason = "observe mode: the tuner does not run"});
  }
}

ServiceStatus ServiceState::Status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

ServiceConfig ServiceState::Config() const {
  std::lock_guard lock(mutex_);
  return status_.config;
}

std::shared_ptr<const nlohmann::json> ServiceState::LatestReport() const {
  std::shared_ptr<const IntervalReading> interval;
  {
    std::lock_guard lock(mutex_);
    if (report_ != nullptr || interval_ == nullptr) return report_;
    interval = interval_;
  }
  // Two readers racing may both build it; either result is the same report.
  auto report = std::make_shared<const nlohmann::json>(
      agent::WindowReport(interval->window, interval->topology, interval->socket_devices));
  std::lock_guard lock(mutex_);
  if (interval_ == interval) report_ = report;
  return report;
}

std::shared_ptr<const RecommendationSet> ServiceState::Recommendations() const {
  std::lock_guard lock(mutex_);
  return recommendations_;
}

void ServiceState::SetConfig(const ServiceConfig& config) {
  std::lock_guard lock(mutex_);
  status_.config = config;
}

void ServiceState::SetBpf(BpfHealth bpf) {
  std::lock_guard lock(mutex_);
  status_.bpf = std::move(bpf);
}

void ServiceState::SetBpfPrograms(std::vector<driver::ProbeStatus> programs) {
  std::lock_guard lock(mutex_);
  status_.bpf.programs = std::move(programs);
}

void ServiceState::SetKnobChanges(std::vector<KnobChange> latest, uint64_t total) {
  std::lock_guard lock(mutex_);
  status_.knob_changes = std::move(latest);
  status_.knob_changes_total = total;
}

void ServiceState::SetHeld(std::vector<HeldChange> held) {
  std::lock_guard lock(mutex_);
  status_.held = std::move(held);
}

void ServiceState::SetOtherTuners(absl::StatusOr<std::vector<observe::OtherTuner>> tuners) {
  std::lock_guard lock(mutex_);
  status_.other_tuners = tuners.ok() ? *std::move(tuners) : std::vector<observe::OtherTuner>{};
  status_.other_tuners_unknown = tuners.ok() ? "" : std::string(tuners.status().message());
}

void ServiceState::SetStorePath(const std::string& path) {
  std::lock_guard lock(mutex_);
  status_.store.configured = true;
  status_.store.healthy = true;
  status_.store.path = path;
}

void ServiceState::PublishInterval(std::shared_ptr<const IntervalReading> interval,
                                   SamplingHealth sampling) {
  std::lock_guard lock(mutex_);
  interval_ = std::move(interval);
  report_ = nullptr;
  status_.sampling = std::move(sampling);
}

void ServiceState::UpdateSampling(const SamplingHealth& sampling) {
  std::lock_guard lock(mutex_);
  status_.sampling = sampling;
}

void ServiceState::NoteStoreResult(const absl::Status& status, absl::Time now) {
  std::lock_guard lock(mutex_);
  status_.store.healthy = status.ok();
  if (status.ok()) return;
  ++status_.store.errors;
  status_.store.last_error = status.ToString();
  status_.store.last_error_time = now;
}

void ServiceState::PublishRecommendations(
    std::shared_ptr<const RecommendationSet> recommendations) {
  std::lock_guard lock(mutex_);
  recommendations_ = std::move(recommendations);
}

}  // namespace nictune::service
