#include "agent/service/emulated_observations.h"

#include "absl/strings/str_cat.h"
#include "agent/log.h"

namespace nictune::service {
namespace {

using driver::emulated::EmulatedNicCounters;

bool WentBackwards(const EmulatedNicCounters& before, const EmulatedNicCounters& now) {
  return now.interrupts < before.interrupts || now.missed < before.missed ||
         now.delivered < before.delivered;
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
  queue.interrupts = now.interrupts - before.interrupts;
  queue.drops.ring = now.missed - before.missed;
  const uint64_t delivered = now.delivered - before.delivered;
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

absl::StatusOr<tuner::Observation> EmulatedObservations::Observe(const model::Window& window,
                                                                 uint32_t samples) {
  absl::StatusOr<tuner::Observation> observation = inner_.Observe(window, samples);
  if (!observation.ok()) return observation;
  for (const auto& [device, source] : nics_) {
    absl::StatusOr<EmulatedNicCounters> now = source->Read();
    if (!now.ok()) {
      agent::LogWarning(absl::StrCat("emulated NIC ", device,
                                     ": counters: ", now.status().message(),
                                     "; the kernel's view of it is used this window"));
      continue;
    }
    auto previous = previous_.find(device);
    if (previous != previous_.end() && !WentBackwards(previous->second, *now)) {
      AddEmulatedCounters(device, previous->second, *now, *observation);
    }
    previous_[device] = *now;
  }
  return observation;
}

}  // namespace nictune::service
