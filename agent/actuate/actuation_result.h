// SPDX-License-Identifier: Apache-2.0
// What one actuator call did to one knob, for the log, the controller, /api/v1/changes and status.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "driver/knobs/knob_access.h"

namespace nictune::actuate {

enum class Outcome {
  kWritten,      // the value is in the kernel, read back and journaled
  kRolledBack,   // the earlier value is back, read back and journaled
  kRestored,     // the original is back (or was already there) and the journal says so
  kUnchanged,    // the kernel already held the value: nothing written
  kReleased,     // someone else owns the knob now: not written, journal released
  kRefused,      // the knob was released earlier: never written again this boot
  kKept,         // a release was asked for, but the kernel still holds our value: still owed
  kUnsupported,  // the knob does not exist on the target: a state, never retried
  kFailed,       // see error; the journal still owes what it owed
};

absl::string_view OutcomeName(Outcome outcome);

struct ActuationResult {
  driver::knobs::KnobAddress address;
  Outcome outcome = Outcome::kFailed;
  std::optional<int64_t> before;  // the kernel's value when the call started, if read
  std::optional<int64_t> after;   // the kernel's value when it ended, if known
  int64_t change_id = 0;          // the journal row this call created or closed; 0 if none
  std::string message;            // one line saying what happened and why
  absl::Status error;             // set for kFailed (and a write's kUnsupported)
  // kFailed before the kernel was touched because the original could not be journaled (a full
  // disk): the knob is as it was, and the write may be asked for again once the journal works.
  bool not_journaled = false;
};

// What RestoreAll or the start-up resolution did, knob by knob.
struct RestoreReport {
  std::vector<ActuationResult> restored;  // the original is in the kernel
  std::vector<ActuationResult> kept;      // policy keep: our value stays and is managed again
  std::vector<ActuationResult> left;      // someone else's value, an unsupported knob, a missing
                                          // device or an earlier boot: released, not written
  std::vector<ActuationResult> failed;    // still owed: retried by the next restore
  absl::Status error;                     // the journal could not be read: nothing was done
};

}  // namespace nictune::actuate
