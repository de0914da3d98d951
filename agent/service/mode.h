// SPDX-License-Identifier: Apache-2.0
// What the agent does with its measurements (--mode), and what it does with changed knobs when it
// stops (--on_exit).
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::service {

enum class Mode {
  kObserve,    // measure only: no tuner
  kRecommend,  // measure and recommend; never writes a knob
  kApply,      // recommend, and carry the recommendations out through the actuator
};

enum class OnExit { kRestore, kKeep };

std::string_view ModeName(Mode mode);
std::string_view OnExitName(OnExit on_exit);

// InvalidArgument naming the flag and the accepted values.
absl::StatusOr<Mode> ParseMode(absl::string_view text);
absl::StatusOr<OnExit> ParseOnExit(absl::string_view text);

// Whether the tuner runs in this mode.
inline bool RunsTuner(Mode mode) { return mode != Mode::kObserve; }

// Why the agent does less than the mode asks, or "" when it does what it says.
std::string_view ModeNote(Mode mode);

}  // namespace nictune::service
