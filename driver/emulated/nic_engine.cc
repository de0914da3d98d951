// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/nic_engine.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace nictune::driver::emulated {
namespace {

absl::Status ValidateSettings(const ModerationSettings& settings) {
  if (settings.rx_usecs < 0 || settings.rx_usecs > kMaxRxUsecs) {
    return absl::InvalidArgumentError(
        absl::StrCat("rx_usecs ", settings.rx_usecs, " is outside 0..", kMaxRxUsecs));
  }
  if (settings.rx_frames < 0 || settings.rx_frames > kMaxRingSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("rx_frames ", settings.rx_frames, " is outside 0..", kMaxRingSize));
  }
  return absl::OkStatus();
}

absl::Status ValidateRingSize(int64_t ring_size) {
  if (ring_size < 1 || ring_size > kMaxRingSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("ring_size ", ring_size, " is outside 1..", kMaxRingSize));
  }
  return absl::OkStatus();
}

}  // namespace

tuner::ModerationConfig NicEngine::ToModerationConfig(const ModerationSettings& settings) {
  tuner::ModerationConfig config;
  if (settings.adaptive_rx) {
    // Modern drivers' adaptive-rx is net_dim; EQE mode starts its timer at the first packet, as
    // the static mode here does.
    config.kind = tuner::ModerationKind::kDim;
    config.dim.mode = tuner::DimPeriodMode::kStartFromEqe;
  } else {
    config.kind = tuner::ModerationKind::kStatic;
    config.fixed.rx_usecs = settings.rx_usecs;
    config.fixed.rx_frames = settings.rx_frames;
  }
  return config;
}

absl::StatusOr<std::unique_ptr<NicEngine>> NicEngine::Create(std::vector<FlowSpec> flows,
                                                             int64_t ring_size,
                                                             const ModerationSettings& settings,
                                                             int64_t start_ns) {
  for (const FlowSpec& flow : flows) {
    if (absl::Status valid = ValidateFlow(flow); !valid.ok()) return valid;
  }
  if (absl::Status valid = ValidateRingSize(ring_size); !valid.ok()) return valid;
  if (absl::Status valid = ValidateSettings(settings); !valid.ok()) return valid;
  return std::unique_ptr<NicEngine>(new NicEngine(std::move(flows), ring_size, settings, start_ns));
}

NicEngine::NicEngine(std::vector<FlowSpec> flows, int64_t ring_size,
                     const ModerationSettings& settings, int64_t start_ns)
    : schedule_(std::move(flows), start_ns),
      ring_size_(ring_size),
      settings_(settings),
      moderator_(ToModerationConfig(settings)) {
  ring_.reserve(static_cast<size_t>(ring_size));
}

bool NicEngine::DueBy(int64_t now_ns) const {
  if (ring_.empty()) return false;
  const int64_t frames = moderator_.FrameThreshold();
  if (frames > 0 && static_cast<int64_t>(ring_.size()) >= frames) return true;
  return timer_start_ns_ + moderator_.IntervalNs() <= now_ns;
}

void NicEngine::Arrive(const Arrival& arrival) {
  ++counters_.generated;
  if (static_cast<int64_t>(ring_.size()) >= ring_size_) {
    ++counters_.missed;
    return;
  }
  if (ring_.empty() || moderator_.RestartsOnEachPacket()) timer_start_ns_ = arrival.time_ns;
  ring_.push_back(PendingFrame{
      .flow = arrival.flow, .sequence = arrival.sequence, .arrival_ns = arrival.time_ns});
}

bool NicEngine::Advance(int64_t now_ns) {
  // Everything that arrived by now is in the ring when the interrupt is served, as a NAPI poll
  // finds it: a late wake-up makes a bigger burst (and maybe ring overflow), never a backlog.
  bool due = false;
  while (true) {
    const Arrival next = schedule_.Peek();
    if (next.time_ns > now_ns) break;
    if (DueBy(next.time_ns)) due = true;
    Arrive(next);
    schedule_.Pop();
  }
  return due || DueBy(now_ns);
}

int64_t NicEngine::NextInterruptNs() const {
  // Walk the arrivals to come on a copy of the schedule without changing anything.
  ArrivalSchedule ahead = schedule_;
  int64_t pending = static_cast<int64_t>(ring_.size());
  int64_t timer_start_ns = timer_start_ns_;
  const int64_t interval_ns = moderator_.IntervalNs();
  const int64_t frames = moderator_.FrameThreshold();
  if (pending > 0 && frames > 0 && pending >= frames) {
    return ring_[static_cast<size_t>(frames) - 1].arrival_ns;
  }
  while (true) {
    const Arrival next = ahead.Peek();
    if (pending > 0 && timer_start_ns + interval_ns <= next.time_ns) {
      return timer_start_ns + interval_ns;
    }
    if (next.time_ns == kNever) return kNever;
    // A full ring ignores arrivals, so only the timer is left: this bounds the walk by the ring
    // size, however high the rate and long the interval.
    if (pending >= ring_size_ && !moderator_.RestartsOnEachPacket()) {
      return timer_start_ns + interval_ns;
    }
    if (pending < ring_size_) {
      if (pending == 0 || moderator_.RestartsOnEachPacket()) timer_start_ns = next.time_ns;
      ++pending;
    }
    if (interval_ns == 0 || (frames > 0 && pending >= frames)) return next.time_ns;
    ahead.Pop();
  }
}

std::vector<PendingFrame> NicEngine::TakeBurst() {
  std::vector<PendingFrame> burst;
  burst.reserve(static_cast<size_t>(ring_size_));
  burst.swap(ring_);
  ++counters_.interrupts;
  return burst;
}

void NicEngine::OnNapiComplete(int64_t now_ns, uint64_t packets, uint64_t bytes) {
  moderator_.OnNapiComplete(now_ns, packets, bytes);
}

absl::Status NicEngine::SetModeration(const ModerationSettings& settings) {
  if (absl::Status valid = ValidateSettings(settings); !valid.ok()) return valid;
  if (settings.adaptive_rx != settings_.adaptive_rx || !settings.adaptive_rx) {
    changes_before_ += moderator_.changes();
    moderator_ = tuner::SimModerator(ToModerationConfig(settings));
  }
  settings_ = settings;
  return absl::OkStatus();
}

absl::Status NicEngine::SetRingSize(int64_t ring_size) {
  if (absl::Status valid = ValidateRingSize(ring_size); !valid.ok()) return valid;
  ring_size_ = ring_size;
  if (static_cast<int64_t>(ring_.size()) > ring_size_) {
    counters_.missed += ring_.size() - static_cast<size_t>(ring_size_);
    ring_.resize(static_cast<size_t>(ring_size_));
  }
  return absl::OkStatus();
}

absl::Status NicEngine::SetFlowRate(size_t flow, double rate_pps, int64_t now_ns) {
  if (flow >= schedule_.flows().size()) {
    return absl::NotFoundError(
        absl::StrCat("flow ", flow, ": there are ", schedule_.flows().size(), " flows"));
  }
  FlowSpec changed = schedule_.flows()[flow];
  changed.rate_pps = rate_pps;
  if (absl::Status valid = ValidateFlow(changed); !valid.ok()) return valid;
  schedule_.SetRate(flow, rate_pps, now_ns);
  return absl::OkStatus();
}

NicEngineCounters NicEngine::counters() const {
  NicEngineCounters counters = counters_;
  counters.adaptive_changes = changes_before_ + moderator_.changes();
  counters.interval_ns = moderator_.IntervalNs();
  counters.frame_threshold = moderator_.FrameThreshold();
  return counters;
}

}  // namespace nictune::driver::emulated
