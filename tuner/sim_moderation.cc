// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_moderation.h"

#include <cstdint>

namespace nictune::tuner {
namespace {

// lib/dim/net_dim.c: five profiles per period mode, a decision every 64 interrupt events, 10% is
// a significant change, and a walk gets tired after 2 * profiles steps.
constexpr int kDimProfiles = 5;
constexpr uint64_t kDimEventsPerDecision = 64;
constexpr int kDimMaxTired = 2 * kDimProfiles;
struct DimProfile {
  int64_t usec;
  int64_t packets;
};
constexpr DimProfile kDimEqeProfiles[kDimProfiles] = {
    {1, 256}, {8, 256}, {64, 256}, {128, 256}, {256, 256}};
constexpr DimProfile kDimCqeProfiles[kDimProfiles] = {
    {2, 256}, {8, 128}, {16, 64}, {32, 64}, {64, 64}};

const DimProfile& DimProfileAt(DimPeriodMode mode, int index) {
  return mode == DimPeriodMode::kStartFromEqe ? kDimEqeProfiles[index] : kDimCqeProfiles[index];
}

bool SignificantlyDifferent(uint64_t value, uint64_t reference) {
  if (reference == 0) return false;
  const uint64_t diff = value > reference ? value - reference : reference - value;
  return diff * 100 / reference > 10;
}

uint64_t PerMs(uint64_t count, uint64_t delta_us) {
  return (count * 1000 + delta_us - 1) / delta_us;  // DIV_ROUND_UP as the kernel does
}

}  // namespace

SimModerator::SimModerator(const ModerationConfig& config) : config_(config) {
  ixgbe_itr_quarter_us_ = static_cast<uint64_t>(config_.ixgbe.low_latency_usecs) * 4;
  dim_profile_ = config_.dim.start_profile;
}

int64_t SimModerator::IntervalNs() const {
  switch (config_.kind) {
    case ModerationKind::kStatic:
      return config_.fixed.rx_usecs * 1000;
    case ModerationKind::kIxgbeAdaptive:
      return static_cast<int64_t>(ixgbe_itr_quarter_us_) * 250;
    case ModerationKind::kDim:
      return DimProfileAt(config_.dim.mode, dim_profile_).usec * 1000;
  }
  return 0;
}

int64_t SimModerator::FrameThreshold() const {
  switch (config_.kind) {
    case ModerationKind::kStatic:
      return config_.fixed.rx_frames;
    case ModerationKind::kIxgbeAdaptive:
      return 0;
    case ModerationKind::kDim:
      return DimProfileAt(config_.dim.mode, dim_profile_).packets;
  }
  return 0;
}

bool SimModerator::RestartsOnEachPacket() const {
  return config_.kind == ModerationKind::kDim && config_.dim.mode == DimPeriodMode::kStartFromCqe;
}

void SimModerator::OnNapiComplete(int64_t now_ns, uint64_t packets, uint64_t bytes) {
  switch (config_.kind) {
    case ModerationKind::kStatic:
      return;
    case ModerationKind::kIxgbeAdaptive:
      IxgbeUpdate(packets, bytes);
      return;
    case ModerationKind::kDim:
      DimUpdate(now_ns, packets, bytes);
      return;
  }
}

void SimModerator::IxgbeUpdate(uint64_t packets, uint64_t bytes) {
  if (packets == 0) return;
  const uint64_t interval_us = ixgbe_itr_quarter_us_ >> 2;
  if (interval_us == 0) return;
  const uint64_t bytes_per_us = bytes / interval_us;
  const auto low = static_cast<uint64_t>(config_.ixgbe.low_bytes_per_usec);
  const auto high = static_cast<uint64_t>(config_.ixgbe.high_bytes_per_usec);
  switch (ixgbe_class_) {
    case IxgbeClass::kLowest:
      if (bytes_per_us > low) ixgbe_class_ = IxgbeClass::kLow;
      break;
    case IxgbeClass::kLow:
      if (bytes_per_us > high) {
        ixgbe_class_ = IxgbeClass::kBulk;
      } else if (bytes_per_us <= low) {
        ixgbe_class_ = IxgbeClass::kLowest;
      }
      break;
    case IxgbeClass::kBulk:
      if (bytes_per_us <= high) ixgbe_class_ = IxgbeClass::kLow;
      break;
  }
  int64_t target_us = config_.ixgbe.bulk_latency_usecs;
  if (ixgbe_class_ == IxgbeClass::kLowest) target_us = config_.ixgbe.lowest_latency_usecs;
  if (ixgbe_class_ == IxgbeClass::kLow) target_us = config_.ixgbe.low_latency_usecs;
  const uint64_t target = static_cast<uint64_t>(target_us) * 4;
  if (target == ixgbe_itr_quarter_us_) return;
  // Move the interrupt rate 10% of the way to the target: 1/new = 0.9/current + 0.1/target.
  const uint64_t current = ixgbe_itr_quarter_us_;
  const uint64_t next = (10 * target * current) / (9 * target + current);
  if (next != current) ++changes_;
  ixgbe_itr_quarter_us_ = next;
}

void SimModerator::DimUpdate(int64_t now_ns, uint64_t packets, uint64_t bytes) {
  dim_total_.time_ns = now_ns;
  dim_total_.events += 1;
  dim_total_.packets += packets;
  dim_total_.bytes += bytes;
  if (!dim_measuring_) {
    dim_start_ = dim_total_;
    dim_measuring_ = true;
    return;
  }
  if (dim_total_.events - dim_start_.events < kDimEventsPerDecision) return;
  const auto delta_us = static_cast<uint64_t>((dim_total_.time_ns - dim_start_.time_ns) / 1000);
  if (delta_us > 0) {
    DimStats current;
    current.ppms = PerMs(dim_total_.packets - dim_start_.packets, delta_us);
    current.bpms = PerMs(dim_total_.bytes - dim_start_.bytes, delta_us);
    current.epms = PerMs(kDimEventsPerDecision, delta_us);
    if (DimDecide(current)) {
      ++changes_;
      // The new profile applies now; measuring starts again at the next completion.
      dim_measuring_ = false;
      return;
    }
  }
  dim_start_ = dim_total_;
}

SimModerator::StatsCompare SimModerator::DimCompare(const DimStats& current,
                                                    const DimStats& previous) {
  // Throughput first (bytes, then packets per ms); fewer interrupts per ms break the tie.
  if (previous.bpms == 0) return current.bpms != 0 ? StatsCompare::kBetter : StatsCompare::kSame;
  if (SignificantlyDifferent(current.bpms, previous.bpms)) {
    return current.bpms > previous.bpms ? StatsCompare::kBetter : StatsCompare::kWorse;
  }
  if (previous.ppms == 0) return current.ppms != 0 ? StatsCompare::kBetter : StatsCompare::kSame;
  if (SignificantlyDifferent(current.ppms, previous.ppms)) {
    return current.ppms > previous.ppms ? StatsCompare::kBetter : StatsCompare::kWorse;
  }
  if (previous.epms == 0) return StatsCompare::kSame;
  if (SignificantlyDifferent(current.epms, previous.epms)) {
    return current.epms < previous.epms ? StatsCompare::kBetter : StatsCompare::kWorse;
  }
  return StatsCompare::kSame;
}

bool SimModerator::DimStep() {
  if (dim_tired_ == kDimMaxTired) {
    dim_steps_left_ = 0;
    dim_steps_right_ = 0;
    dim_state_ = DimTuneState::kParkingTired;
    return false;
  }
  if (dim_state_ == DimTuneState::kGoingRight) {
    if (dim_profile_ == kDimProfiles - 1) return false;
    ++dim_profile_;
    ++dim_steps_right_;
  } else if (dim_state_ == DimTuneState::kGoingLeft) {
    if (dim_profile_ == 0) return false;
    --dim_profile_;
    ++dim_steps_left_;
  }
  ++dim_tired_;
  return true;
}

bool SimModerator::DimOnTop() const {
  switch (dim_state_) {
    case DimTuneState::kParkingOnTop:
    case DimTuneState::kParkingTired:
      return true;
    case DimTuneState::kGoingRight:
      return dim_steps_left_ > 1 && dim_steps_right_ == 1;
    case DimTuneState::kGoingLeft:
      return dim_steps_right_ > 1 && dim_steps_left_ == 1;
  }
  return false;
}

void SimModerator::DimTurn() {
  if (dim_state_ == DimTuneState::kGoingRight) {
    dim_state_ = DimTuneState::kGoingLeft;
    dim_steps_left_ = 0;
  } else if (dim_state_ == DimTuneState::kGoingLeft) {
    dim_state_ = DimTuneState::kGoingRight;
    dim_steps_right_ = 0;
  }
}

void SimModerator::DimExitParking() {
  dim_state_ = dim_profile_ != 0 ? DimTuneState::kGoingLeft : DimTuneState::kGoingRight;
  DimStep();
}

bool SimModerator::DimDecide(const DimStats& current) {
  const DimTuneState previous_state = dim_state_;
  const int previous_profile = dim_profile_;
  auto park_on_top = [this] {
    dim_steps_left_ = 0;
    dim_steps_right_ = 0;
    dim_tired_ = 0;
    dim_state_ = DimTuneState::kParkingOnTop;
  };
  switch (dim_state_) {
    case DimTuneState::kParkingOnTop:
      if (DimCompare(current, dim_prev_) != StatsCompare::kSame) DimExitParking();
      break;
    case DimTuneState::kParkingTired:
      if (--dim_tired_ == 0) DimExitParking();
      break;
    case DimTuneState::kGoingRight:
    case DimTuneState::kGoingLeft:
      if (DimCompare(current, dim_prev_) != StatsCompare::kBetter) DimTurn();
      if (DimOnTop()) {
        park_on_top();
        break;
      }
      if (!DimStep() && dim_state_ != DimTuneState::kParkingTired) park_on_top();
      break;
  }
  // Parked on top, the reference stays the stats that made it park.
  if (previous_state != DimTuneState::kParkingOnTop || dim_state_ != DimTuneState::kParkingOnTop) {
    dim_prev_ = current;
  }
  return dim_profile_ != previous_profile;
}

}  // namespace nictune::tuner
