// SPDX-License-Identifier: Apache-2.0
#include "agent/service/mode.h"

#include "absl/strings/str_cat.h"

namespace nictune::service {

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kObserve:
      return "observe";
    case Mode::kRecommend:
      return "recommend";
    case Mode::kApply:
      return "apply";
  }
  return "unknown";
}

std::string_view OnExitName(OnExit on_exit) {
  return on_exit == OnExit::kRestore ? "restore" : "keep";
}

absl::StatusOr<Mode> ParseMode(absl::string_view text) {
  for (Mode mode : {Mode::kObserve, Mode::kRecommend, Mode::kApply}) {
    const std::string_view name = ModeName(mode);
    if (text == absl::string_view(name.data(), name.size())) return mode;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--mode=", text, ": expected observe, recommend or apply"));
}

absl::StatusOr<OnExit> ParseOnExit(absl::string_view text) {
  if (text == "restore") return OnExit::kRestore;
  if (text == "keep") return OnExit::kKeep;
  return absl::InvalidArgumentError(absl::StrCat("--on_exit=", text, ": expected restore or keep"));
}

std::string_view ModeNote(Mode) { return ""; }

}  // namespace nictune::service
