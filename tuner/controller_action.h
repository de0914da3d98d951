// SPDX-License-Identifier: Apache-2.0
// What the apply-mode controller asks the agent's actuator to do. The controller performs no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "absl/time/time.h"
#include "tuner/knob.h"

namespace nictune::tuner {

// Write value (the knob read `from`).
struct Apply {
  Knob knob = Knob::kRxUsecs;
  std::string target;
  int64_t from = 0;
  int64_t value = 0;
  std::string reason;
  // The target's granularity (Recommendation::step): a read-back within it of `value` is the
  // driver's rounding, not someone else's write.
  int64_t step = 1;
};

// Put back the value from before our change: the guard window saw a regression.
struct Rollback {
  Knob knob = Knob::kRxUsecs;
  std::string target;
  int64_t from = 0;
  int64_t value = 0;
  std::string reason;
};

// Someone else changed the knob since our last write: a person owns it now; never write it again.
struct Release {
  Knob knob = Knob::kRxUsecs;
  std::string target;
  int64_t expected = 0;  // our last write
  int64_t found = 0;     // what was read
  std::string owner;     // who changed it, as the agent was told ("unknown" otherwise)
  absl::Time changed_at;
  std::string reason;
};

using Action = std::variant<Apply, Rollback, Release>;

// What holds a recommended change back.
enum class HeldFor {
  kGain,        // its expected gain is below the hysteresis threshold
  kConfidence,  // its confidence is below ControllerConfig::min_confidence
  kReversal,    // it reverses the last change's direction inside the cooldown
  // the last step this way, taken against drops, left them as they were, inside the cooldown
  kIneffective,
};

// "gain", "confidence", "reversal" or "ineffective".
inline const char* HeldForName(HeldFor why) {
  switch (why) {
    case HeldFor::kGain:
      return "gain";
    case HeldFor::kConfidence:
      return "confidence";
    case HeldFor::kReversal:
      return "reversal";
    case HeldFor::kIneffective:
      return "ineffective";
  }
  return "unknown";
}

// A change recommended and not made this window, and why: not an action, nothing is written.
struct Held {
  Knob knob = Knob::kRxUsecs;
  std::string target;
  int64_t recommended = 0;
  HeldFor why = HeldFor::kGain;
  std::string reason;
};

// A change whose guard window passed this window: kept, with the figures it was judged on.
struct KeptChange {
  Knob knob = Knob::kRxUsecs;
  std::string target;
  std::string reason;  // "guard window passed: kept (drops 0.00/s vs baseline 12.00/s, ...)"
};

}  // namespace nictune::tuner
