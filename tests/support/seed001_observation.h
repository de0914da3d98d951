// SPDX-License-Identifier: Apache-2.0
// Seed 001 as the tuner's input: a 10 GbE ixgbe queue (eth0 rx 0) at 812744 pps of 1514-byte
// frames into one UDP socket with the default 212992-byte buffer (truesize 2994), adaptive ITR on
// at rx-usecs 1, dropping 4M packets in a 10 s window. Its arithmetic is known: C = 71.14
// packets, T_fill = 87.5 us, so at margin 0 the tuner recommends rx-usecs 87.
#pragma once

#include <cstdint>

#include "tuner/observation.h"

namespace nictune::testing_support {

inline constexpr uint64_t kSeed001PacketsPerSecond = 812744;

tuner::Observation Seed001Observation();

}  // namespace nictune::testing_support
