// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/control_commands.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "driver/emulated/control_protocol.h"

namespace nictune::driver::emulated {
namespace {

// The path as one shell word: as it is when nothing in it is special to the shell or to socat's
// address syntax (',' and ':' separate its options), else single-quoted.
std::string ShellPath(absl::string_view path) {
  const bool plain = !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' ||
           c == '_' || c == '-';
  });
  if (plain) return std::string(path);
  return absl::StrCat("'", absl::StrReplaceAll(path, {{"'", "'\\''"}}), "'");
}

}  // namespace

std::optional<absl::string_view> ControlKeyFor(tuner::Knob knob) {
  switch (knob) {
    case tuner::Knob::kRxUsecs:
      return kKeyRxUsecs;
    case tuner::Knob::kRxFrames:
      return kKeyRxFrames;
    case tuner::Knob::kAdaptiveRx:
      return kKeyAdaptiveRx;
    default:
      return std::nullopt;
  }
}

std::optional<std::string> ControlShellCommand(tuner::Knob knob, int64_t value,
                                               absl::string_view control_socket_path) {
  const std::optional<absl::string_view> key = ControlKeyFor(knob);
  if (!key) return std::nullopt;
  const std::string line = FormatControlRequest(
      ControlRequest{.verb = ControlVerb::kSet, .key = std::string(*key), .value = value});
  return absl::StrCat("printf '", line, "\\n' | socat - UNIX-CONNECT:",
                      ShellPath(control_socket_path));
}

}  // namespace nictune::driver::emulated
