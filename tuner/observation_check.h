// SPDX-License-Identifier: Apache-2.0
// Rejects observations the math cannot trust: NaN/inf/negative gauges, shares outside 0..1, knob
// readings outside the kernel's range, and counts that imply impossible rates (wrapped counters).
#pragma once

#include "absl/status/status.h"
#include "tuner/observation.h"

namespace nictune::tuner {

// A truesize is at least an skb head (~256 B) and at most a 64 KiB GRO super-packet with its
// pages; 1 MiB leaves room without letting garbage through.
inline constexpr double kMaxTruesizeBytes = 1 << 20;
// The longest drain gap, burst or pause an observation may report.
inline constexpr double kMaxDrainGapSeconds = 3600;

// InvalidArgument naming the queue, field and value, e.g.
// "observation eth0 rx 0: interrupts = 18446744073709551611 over 10 s is 1.8e+18/s, above the
// plausible 1e+09/s (a wrapped counter?)".
absl::Status CheckObservation(const Observation& obs);

}  // namespace nictune::tuner
