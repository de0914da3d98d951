// SPDX-License-Identifier: Apache-2.0
// What the tuner says about one knob, with the arithmetic a person can check
// (docs/design.md "The math").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tuner/knob.h"

namespace nictune::tuner {

struct Input {
  std::string name;  // "rate"
  double value = 0;
  std::string unit;  // "pps"
};

struct Confidence {
  double value = 0;    // 0..1
  std::string reason;  // "10 samples over 10 s, 8127440 packets"
};

struct Recommendation {
  Knob knob = Knob::kRxUsecs;
  std::string knob_name;  // KnobName(knob)
  Scope scope = Scope::kHost;
  std::string target;  // "host", "eth0", "eth0 rx 3", or the socket's name
  int64_t current = 0;
  int64_t recommended = 0;
  // The values the target takes are multiples of this (a driver's rx-usecs granularity: ixgbe
  // rounds to 2 us); a bounded step toward `recommended` stays on them, since a value the driver
  // rounds reads back as someone else's.
  int64_t step = 1;
  std::vector<Input> inputs;
  // The formula with the numbers substituted, e.g. "C = 212992 B / 2994 B = 71.14 packets; ...".
  std::string formula;
  std::string expected_effect;
  // Predicted relative improvement of what the change is for (drops or interrupts or CPU), 0..1;
  // the controller acts only above its hysteresis threshold.
  double expected_gain = 0;
  Confidence confidence;
  // Empty when this value is predicted to fix what it is for (with the other recommendations of
  // the same Recommend call); else why it cannot, e.g. "CPU saturated: ..." or the buffer a
  // socket needs above the tuner's rmem cap. A person has to act on these.
  std::string unresolved;
};

// A recommendation to keep `current`, with no formula yet: where every policy starts before it
// decides.
inline Recommendation Unchanged(Knob knob, Scope scope, std::string target, int64_t current,
                                Confidence confidence) {
  Recommendation r;
  r.knob = knob;
  r.knob_name = std::string(KnobName(knob));
  r.scope = scope;
  r.target = std::move(target);
  r.current = current;
  r.recommended = current;
  r.confidence = std::move(confidence);
  return r;
}

}  // namespace nictune::tuner
