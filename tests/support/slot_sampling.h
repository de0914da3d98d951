// SPDX-License-Identifier: Apache-2.0
// How far a mean over a few probe slots may miss the whole window's by chance alone, for the
// tests that hold a slotted figure against one attached whole: three standard errors of a mean of
// `slots` draws, the spread estimated from stretches of the flood read through the whole set.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace nictune::testing_support {

inline double MeanOf(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// In the values' unit; 0 with fewer than two stretches or no slot.
inline double SlotSamplingError(const std::vector<double>& stretches, uint64_t slots) {
  if (stretches.size() < 2 || slots == 0) return 0;
  const double mean = MeanOf(stretches);
  double variance = 0;
  for (double v : stretches) variance += (v - mean) * (v - mean);
  variance /= static_cast<double>(stretches.size() - 1);
  return 3 * std::sqrt(variance / static_cast<double>(slots));
}

}  // namespace nictune::testing_support
