// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_gaps.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace nictune::tuner {
namespace {

// Any fixed odd constant (the fractional bits of sqrt(2)): the gaps' stream differs from the
// arrivals' stream of the same seed.
constexpr uint64_t kGapStreamSalt = 0x6a09e667f3bcc909;

}  // namespace

SimGaps::SimGaps(const AppConfig& app, uint64_t seed)
    : gap_ns_(app.gap_period_ns > 0 ? app.gap_ns : 0),
      period_ns_(app.gap_period_ns),
      latest_start_ns_(std::max<int64_t>(0, app.gap_period_ns - 2 * app.gap_ns)),
      rng_(seed ^ kGapStreamSalt) {
  if (gap_ns_ > 0) PlaceInPeriod(0);
}

void SimGaps::PlaceInPeriod(int64_t period_index) {
  period_index_ = period_index;
  // Modulo, not std::uniform_int_distribution, whose algorithm differs between standard
  // libraries; the bias is below range / 2^64 (< 1e-8 for a 100 s period).
  const auto offset = static_cast<int64_t>(rng_() % static_cast<uint64_t>(latest_start_ns_ + 1));
  start_ns_ = period_index * period_ns_ + offset;
  end_ns_ = start_ns_ + gap_ns_;
}

void SimGaps::AdvanceTo(int64_t now) {
  if (gap_ns_ == 0) return;
  while (now >= end_ns_) PlaceInPeriod(period_index_ + 1);
}

bool SimGaps::InGap(int64_t now) const { return gap_ns_ > 0 && now >= start_ns_ && now < end_ns_; }

int64_t SimGaps::NextBoundary(int64_t now) const {
  if (gap_ns_ == 0) return std::numeric_limits<int64_t>::max();
  return now < start_ns_ ? start_ns_ : end_ns_;
}

}  // namespace nictune::tuner
