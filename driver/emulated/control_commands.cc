// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/control_commands.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "driver/emulated/control_protocol.h"

namespace nictune::driver::emulated {
namespace {

// A path that is one word to the shell and to socat's address syntax as it is (socat reads ',',
// ':', quotes and brackets in an address as its own syntax, after the shell's quotes are gone).
bool PlainPath(absl::string_view path) {
  return !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' ||
           c == '-';
  });
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
    case tuner::Knob::kRxRing:
      return kKeyRingSize;
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
  if (!PlainPath(control_socket_path)) {
    return absl::StrCat("# send \"", line,
                        "\" to the emulated NIC's control socket by hand: its "
                        "path has characters a shell or socat would read as syntax");
  }
  return absl::StrCat("printf '", line, "\\n' | socat - UNIX-CONNECT:", control_socket_path);
}

}  // namespace nictune::driver::emulated
