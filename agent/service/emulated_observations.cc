// SPDX-License-Identifier: Apache-2.0
#include "agent/service/emulated_observations.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/log.h"

namespace nictune::service {
namespace {

using driver::emulated::EmulatedNicCounters;

bool WentBackwards(const EmulatedNicCounters& before, const EmulatedNicCounters& now) {
  return now.interrupts < before.interrupts || now.missed < before.missed ||
         now.delivered < before.delivered;
}

// `count` over the NIC's span, as a count over the observation's window.
uint64_t ToWindow(uint64_t count, double window_per_span) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(count) * window_per_span));
}

uint32_t Clamp32(int64_t value) {
  if (value < 0) return 0;
  return value > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(value);
}

}  // namespace

void AddEmulatedCounters(const std::string& device, const EmulatedNicCounters& before,
                         const EmulatedNicCounters& now, tuner::Observation& observation) {
  std::vector<tuner::QueueObservation*> queues;
  for (tuner::QueueObservation& queue : observation.queues) {
    if (queue.device == device) queues.push_back(&queue);
  }
  if (queues.empty()) {
    tuner::QueueObservation queue;
    queue.device = device;
    queue.queue = -1;
    observation.queues.push_back(std::move(queue));
    queues.push_back(&observation.queues.back());
  }
  // The emulated NIC has one ring and one "vector": its counts belong to the device's first queue.
  tuner::QueueObservation& queue = *queues.front();
  const int64_t span_ns = now.elapsed_ns - before.elapsed_ns;
  const int64_t window_ns = absl::ToInt64Nanoseconds(observation.window);
  const double window_per_span = span_ns > 0 && window_ns > 0
                                     ? static_cast<double>(window_ns) / static_cast<double>(span_ns)
                                     : 1.0;
  queue.interrupts = ToWindow(now.interrupts - before.interrupts, window_per_span);
  queue.drops.ring = ToWindow(now.missed - before.missed, window_per_span);
  const uint64_t delivered = ToWindow(now.delivered - before.delivered, window_per_span);
  if (queue.rx_packets < delivered) queue.rx_packets = delivered;
  tuner::CoalesceState& coalesce = queue.coalesce;
  coalesce.rx_usecs_supported = true;
  coalesce.rx_frames_supported = true;
  coalesce.adaptive_rx_supported = true;
  coalesce.rx_usecs = Clamp32(now.rx_usecs);
  coalesce.rx_frames = Clamp32(now.rx_frames);
  coalesce.adaptive_rx = now.adaptive_rx != 0;
  coalesce.rx_ring_size = Clamp32(now.ring_size);
}

void EmulatedObservations::Start() {
  for (const auto& [device, source] : nics_) {
    if (absl::StatusOr<EmulatedNicCounters> now = source->Read(); now.ok())
      previous_[device] = *now;
  }
}

absl::StatusOr<tuner::Observation> EmulatedObservations::Observe(const model::Window& window,
                                                                 uint32_t samples) {
  absl::StatusOr<tuner::Observation> observation = inner_.Observe(window, samples);
  if (!observation.ok()) return observation;
  for (const auto& [device, source] : nics_) {
    absl::StatusOr<EmulatedNicCounters> now = source->Read();
    const std::string problem = absl::StrCat("counters of emulated NIC ", device);
    if (!now.ok()) {
      problems_.Log(agent::LogLevel::kWarning, problem,
                    absl::StrCat("emulated NIC ", device, ": counters: ", now.status().message(),
                                 "; the kernel's view of it is used until they can be read"),
                    absl::Now());
      continue;
    }
    problems_.Clear(problem);
    auto previous = previous_.find(device);
    if (previous != previous_.end() && !WentBackwards(previous->second, *now)) {
      AddEmulatedCounters(device, previous->second, *now, *observation);
    }
    previous_[device] = *now;
  }
  return observation;
}

}  // namespace nictune::service
