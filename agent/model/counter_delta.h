// SPDX-License-Identifier: Apache-2.0
// Differences of kernel counters between two snapshots.
#pragma once

#include <cstdint>

namespace nictune::model {

// softnet_stat counters are u32 and wrap: the modular difference is right as long as fewer than
// 2^32 events happen between two samples (at 1 s intervals, more than 4 G packets/s per CPU).
constexpr uint64_t WrappingDelta32(uint32_t before, uint32_t after) {
  return static_cast<uint32_t>(after - before);
}

// u64 counters do not wrap in practice; a decrease means the counter restarted (a device or irq
// was re-created, the probes were reloaded), and what it counted since then is its new value.
constexpr uint64_t ResettingDelta64(uint64_t before, uint64_t after) {
  return after >= before ? after - before : after;
}

}  // namespace nictune::model
