// SPDX-License-Identifier: Apache-2.0
// Delivery stalls (docs/design.md glossary: "stall"): what arrives while a queue's delivery is held
// off reaches the socket in one late burst, whatever the knobs. The guard and the interval plan
// both leave that many drops out of what they judge a setting by.
#pragma once

#include <algorithm>

#include "absl/time/time.h"

namespace nictune::tuner {

// Of `packets` that arrived over `window`, those that came during `stall_s` seconds of stalled
// delivery, at the window's mean rate.
inline double StalledArrivals(double packets, double stall_s, absl::Duration window) {
  const double seconds = absl::ToDoubleSeconds(window);
  if (stall_s <= 0 || seconds <= 0) return 0;
  return packets * std::min(1.0, stall_s / seconds);
}

}  // namespace nictune::tuner
