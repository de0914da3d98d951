// SPDX-License-Identifier: Apache-2.0
// The observation of an emulated NIC's device: the kernel sees no hard interrupt and no ring for a
// TAP, so the emulated NIC's own counters (emulated interrupts, ring overflows, delivered packets)
// and its moderation settings take their place, as a real driver's would. Decorates the host's
// observation source.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/rate_limited_log.h"
#include "agent/service/nic_counters_source.h"
#include "agent/service/sampler_ports.h"
#include "driver/emulated/counters.h"

namespace nictune::service {

class EmulatedObservations : public ObservationSource {
 public:
  // inner and the sources must outlive this; `nics` maps device name -> its counters.
  EmulatedObservations(ObservationSource& inner, std::map<std::string, NicCountersSource*> nics)
      : inner_(inner), nics_(std::move(nics)) {}

  // Reads each NIC's counters once, as the baseline of the first window: without it the first
  // tuner window (the one that sees a problem first) has no NIC counts at all. A NIC that cannot
  // be read yet gets its baseline at the first window instead.
  void Start();

  // The inner observation, with each emulated device's queue (added when the kernel saw none)
  // carrying the counters' deltas since the previous reading, scaled to the window. A NIC whose
  // counters cannot be read keeps the kernel's view and the failure is logged (once a minute at
  // most: a NIC that is gone fails every window); a window without a
  // baseline (the NIC unreadable before, or restarted so that its counters went backwards) adds
  // nothing.
  absl::StatusOr<tuner::Observation> Observe(const model::Window& window,
                                             uint32_t samples) override;

 private:
  ObservationSource& inner_;
  std::map<std::string, NicCountersSource*> nics_;
  std::map<std::string, driver::emulated::EmulatedNicCounters> previous_;
  agent::RateLimitedLog problems_;
};

// Adds counters `now - before` of `device` to the observation (pure; exposed for tests). The
// counts are scaled by observation.window / (now.elapsed_ns - before.elapsed_ns), the NIC's own
// clock: the readings are taken when windows close, and the first span (from the agent's start,
// or across a window restarted when the per-packet probes switched on) is longer than a window,
// which would overstate every rate the tuner derives from the window's length.
void AddEmulatedCounters(const std::string& device,
                         const driver::emulated::EmulatedNicCounters& before,
                         const driver::emulated::EmulatedNicCounters& now,
                         tuner::Observation& observation);

}  // namespace nictune::service
