// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_arrivals.h"

#include <cmath>
#include <cstdint>

namespace nictune::tuner {

SimArrivals::SimArrivals(const ArrivalConfig& config, uint64_t seed) : config_(config), rng_(seed) {
  double rate = config_.rate_pps;
  if (config_.pattern == ArrivalPattern::kOnOff) {
    // The peak rate that gives the configured mean over whole on+off periods.
    rate *=
        static_cast<double>(config_.on_ns + config_.off_ns) / static_cast<double>(config_.on_ns);
  }
  gap_ns_ = 1e9 / rate;
}

double SimArrivals::UniformOpen() {
  // 53 random bits -> [0, 1), shifted by half a step into (0, 1) so log() never sees 0.
  const uint64_t bits = rng_() >> 11;
  return (static_cast<double>(bits) + 0.5) / 9007199254740992.0;
}

int64_t SimArrivals::Next() {
  switch (config_.pattern) {
    case ArrivalPattern::kConstant:
      return std::llround(static_cast<double>(index_++) * gap_ns_);
    case ArrivalPattern::kPoisson: {
      const int64_t t = std::llround(poisson_t_ns_);
      poisson_t_ns_ += -std::log(UniformOpen()) * 1e9 / config_.rate_pps;
      return t;
    }
    case ArrivalPattern::kOnOff: {
      const int64_t period_ns = config_.on_ns + config_.off_ns;
      int64_t offset = std::llround(static_cast<double>(index_) * gap_ns_);
      if (offset >= config_.on_ns) {
        ++period_;
        index_ = 0;
        offset = 0;
      }
      ++index_;
      return period_ * period_ns + offset;
    }
  }
  return 0;
}

}  // namespace nictune::tuner
