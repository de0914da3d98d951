// SPDX-License-Identifier: Apache-2.0
// Integer ranges of every knob: what the kernel accepts (a reading outside it is corrupt) and the
// hard caps inside which the tuner may move a knob (docs/design.md "Knobs").
#pragma once

#include <cstdint>
#include <limits>

#include "tuner/knob.h"

namespace nictune::tuner {

struct KnobRange {
  int64_t min = 0;
  int64_t max = 0;
};

inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kUint32Max = std::numeric_limits<uint32_t>::max();
inline constexpr int64_t kMiB = 1024 * 1024;

// The kernel's own type or sysctl bounds. ethtool coalesce fields are u32; net.core sysctls are
// int; dev_weight and the biases have a minimum of 1; gro_flush_timeout is an unsigned long in ns.
constexpr KnobRange KernelRange(Knob knob) {
  switch (knob) {
    case Knob::kRxUsecs:
    case Knob::kRxFrames:
      return {0, kUint32Max};
    case Knob::kAdaptiveRx:
      return {0, 1};
    case Knob::kNapiThreaded:
      return {0, 2};  // 2: threads that busy-poll (6.17 on)
    case Knob::kRxRing:
      return {1, kUint32Max};
    case Knob::kNetdevBudget:
    case Knob::kNetdevBudgetUsecs:
    case Knob::kNapiDeferHardIrqs:
    case Knob::kSoRcvbuf:
      return {0, kInt32Max};
    case Knob::kDevWeight:
    case Knob::kDevWeightRxBias:
    case Knob::kDevWeightTxBias:
    case Knob::kRmemDefault:
    case Knob::kRmemMax:
    case Knob::kUdpRmemMin:
      return {1, kInt32Max};
    case Knob::kGroFlushTimeout:
      return {0, std::numeric_limits<int64_t>::max()};
  }
  return {0, 0};
}

// Where the tuner may move a knob. Beyond these a setting trades too much latency (rx-usecs,
// gro_flush_timeout), starves user space (budgets, weights) or pins too much memory per socket
// (rmem); a person may go further, the tuner does not.
constexpr KnobRange TunerRange(Knob knob) {
  switch (knob) {
    case Knob::kRxUsecs:
      return {0, 8192};  // above the largest driver maximum we know (i40e 8160 us)
    case Knob::kRxFrames:
      return {0, 65535};
    case Knob::kAdaptiveRx:
      return {0, 1};
    case Knob::kNapiThreaded:
      return {0, 1};  // busy-polling threads spin a CPU each: a person's choice
    case Knob::kRxRing:
      return {64, 8192};  // each descriptor pins a receive buffer: 8192 is mlx5's maximum
    case Knob::kNetdevBudget:
      return {16, 4096};  // default 300
    case Knob::kNetdevBudgetUsecs:
      return {1000, 32000};  // default 2 jiffies: 2000 (HZ=1000) .. 8000 (HZ=250)
    case Knob::kDevWeight:
      return {16, 512};  // default 64
    case Knob::kDevWeightRxBias:
    case Knob::kDevWeightTxBias:
      return {1, 16};  // default 1
    case Knob::kNapiDeferHardIrqs:
      return {0, 100};
    case Knob::kGroFlushTimeout:
      return {0, 10'000'000};  // 10 ms
    case Knob::kRmemDefault:
    case Knob::kRmemMax:
      return {4096, 64 * kMiB};
    case Knob::kUdpRmemMin:
      return {4096, 4 * kMiB};
    case Knob::kSoRcvbuf:
      return {1152, 32 * kMiB};  // the kernel doubles it: sk_rcvbuf up to 64 MiB
  }
  return {0, 0};
}

constexpr bool InRange(int64_t value, KnobRange range) {
  return value >= range.min && value <= range.max;
}

// Event rates above this are not physical (1.6 Tb/s of 64-byte frames is ~2.4e9 pps per host,
// and one queue sees far less): a count that implies more came from a wrapped or corrupt counter.
inline constexpr double kMaxPlausibleEventsPerSecond = 1e9;

// No kernel runs on more CPUs than this (NR_CPUS is at most 8192): a count of CPUs beyond it is
// corrupt.
inline constexpr double kMaxCpus = 8192;

// Without a measured cost of an interrupt, assume this much (hard IRQ entry/exit plus the fixed
// part of one NAPI poll on a current x86 core); confidence drops when it is used.
inline constexpr double kDefaultInterruptCostSeconds = 2e-6;

}  // namespace nictune::tuner
