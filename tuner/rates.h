// SPDX-License-Identifier: Apache-2.0
// Counts over a window into per-second rates, and seconds into the microseconds formulas print.
#pragma once

#include <cstdint>

#include "absl/time/time.h"

namespace nictune::tuner {

// count / window; 0 for an empty window. Exact enough: doubles hold counts to 2^53 exactly and
// near 2^64 lose only relative precision, never overflow.
inline double PerSecond(uint64_t count, absl::Duration window) {
  const double seconds = absl::ToDoubleSeconds(window);
  return seconds > 0 ? static_cast<double>(count) / seconds : 0.0;
}

// Seconds in microseconds, as the formulas write intervals and costs.
inline double Us(double seconds) { return seconds * 1e6; }

}  // namespace nictune::tuner
