// SPDX-License-Identifier: Apache-2.0
// Counts over a window from the Window's per-second rates: the Window keeps rates, the tuner
// takes the counts they came from.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace nictune::observe {

// rate * seconds, rounded. A count too large for u64 saturates so that the tuner's plausibility
// check rejects it by name (converting such a double to an integer would be undefined).
inline uint64_t CountOver(double per_s, double seconds) {
  const double count = std::round(per_s * seconds);
  if (!(count > 0)) return 0;  // also NaN
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (count >= kTwoTo64) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(count);
}

}  // namespace nictune::observe
