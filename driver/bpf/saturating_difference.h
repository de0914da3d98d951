// SPDX-License-Identifier: Apache-2.0
// a - b for the cumulative counters and clock readings of the probe budget, 0 where b is ahead: a
// counter read twice that went back (a lost increment read between two racing CPUs), a time taken
// before another thread's, so that one odd read never becomes a debt.
#pragma once

#include <cstdint>

namespace nictune::driver::bpf {

inline uint64_t SaturatingDifference(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace nictune::driver::bpf
