// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's receive side as a pure state machine: flows arrive into an rx ring of fixed
// size (a packet that finds it full is missed), and the interrupt moderation decides when the
// ring is handed to the kernel as one burst. The process (driver/emulated/nic) owns the clock and
// the TAP device; this class only says what is due when.
//
// The moderation is the tuner simulator's (tuner::SimModerator): static rx-usecs / rx-frames, and
// adaptive-rx as lib/dim's net_dim walk, learning from each burst at "napi complete" time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/emulated/arrival_schedule.h"
#include "driver/emulated/flow_spec.h"
#include "tuner/sim_moderation.h"

namespace nictune::driver::emulated {

// What `ethtool -C` would set on a real NIC.
struct ModerationSettings {
  int64_t rx_usecs = 0;   // 0: interrupt as soon as a packet is pending
  int64_t rx_frames = 0;  // 0: no frame threshold
  bool adaptive_rx = false;
};

inline constexpr int64_t kMaxRxUsecs = 1'000'000;
inline constexpr int64_t kMaxRingSize = 65536;

struct PendingFrame {
  size_t flow = 0;
  uint64_t sequence = 0;
  int64_t arrival_ns = 0;
};

struct NicEngineCounters {
  uint64_t generated = 0;   // packets that arrived at the NIC
  uint64_t missed = 0;      // arrived while the ring was full (rx_missed)
  uint64_t interrupts = 0;  // bursts handed over
  uint64_t adaptive_changes = 0;
  int64_t interval_ns = 0;      // the moderation's current timer (adaptive: its latest choice)
  int64_t frame_threshold = 0;  // the moderation's current frame count (0: none)
};

class NicEngine {
 public:
  static absl::StatusOr<std::unique_ptr<NicEngine>> Create(std::vector<FlowSpec> flows,
                                                           int64_t ring_size,
                                                           const ModerationSettings& settings,
                                                           int64_t start_ns);

  // When the next interrupt will fire if nothing changes; kNever when no packet will come. May
  // be in the past when the caller is late.
  int64_t NextInterruptNs() const;

  // Takes every arrival up to now_ns into the ring and returns true when an interrupt fell due by
  // then; call TakeBurst and OnNapiComplete next.
  bool Advance(int64_t now_ns);

  // The interrupt fired: the ring's packets, oldest first; the ring is empty afterwards.
  std::vector<PendingFrame> TakeBurst();

  // The kernel took the burst; adaptive moderation learns from it and the interrupt re-arms.
  void OnNapiComplete(int64_t now_ns, uint64_t packets, uint64_t bytes);

  absl::Status SetModeration(const ModerationSettings& settings);
  // Shrinking below what is pending drops the newest packets as missed, as a ring reset would.
  absl::Status SetRingSize(int64_t ring_size);
  absl::Status SetFlowRate(size_t flow, double rate_pps, int64_t now_ns);

  const ModerationSettings& settings() const { return settings_; }
  int64_t ring_size() const { return ring_size_; }
  size_t pending() const { return ring_.size(); }
  const std::vector<FlowSpec>& flows() const { return schedule_.flows(); }
  NicEngineCounters counters() const;

 private:
  NicEngine(std::vector<FlowSpec> flows, int64_t ring_size, const ModerationSettings& settings,
            int64_t start_ns);
  static tuner::ModerationConfig ToModerationConfig(const ModerationSettings& settings);
  bool DueBy(int64_t now_ns) const;
  void Arrive(const Arrival& arrival);

  ArrivalSchedule schedule_;
  int64_t ring_size_;
  ModerationSettings settings_;
  tuner::SimModerator moderator_;
  uint64_t changes_before_ = 0;  // adaptive changes of moderators replaced by SetModeration
  std::vector<PendingFrame> ring_;
  int64_t timer_start_ns_ = 0;  // valid while the ring is not empty
  NicEngineCounters counters_;
};

}  // namespace nictune::driver::emulated
