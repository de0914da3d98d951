// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/knob_target.h"

#include <net/if.h>

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "driver/kernel_name.h"

namespace nictune::driver::knobs {
namespace {

// The kernel's dev_valid_name(): what a device name may be, and so what may go into a path.
bool ValidDeviceName(absl::string_view name) {
  if (name.empty() || name.size() >= IFNAMSIZ || name == "." || name == "..") return false;
  for (const char c : name) {
    if (c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\0') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<KnobTarget> ParseKnobTarget(const std::string& target) {
  if (target == kHostTarget) return KnobTarget{.host = true, .device = "", .napi_id = {}};
  const std::vector<absl::string_view> words = absl::StrSplit(target, ' ');
  if (words.size() != 1 && words.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("knob target '", target, "': expected \"host\", \"DEV\" or \"DEV napi ID\""));
  }
  if (!ValidDeviceName(KernelNameBytes(words[0]))) {
    return absl::InvalidArgumentError(
        absl::StrCat("knob target '", target, "': '", words[0], "' is not a valid device name"));
  }
  KnobTarget parsed{.host = false, .device = std::string(words[0]), .napi_id = {}};
  if (words.size() == 1) return parsed;
  uint32_t napi_id = 0;
  if (words[1] != "napi" || !absl::SimpleAtoi(words[2], &napi_id) || napi_id == 0 ||
      words[2].front() == '+' || words[2].front() == '-') {
    return absl::InvalidArgumentError(absl::StrCat(
        "knob target '", target, "': expected \"DEV napi ID\" with a positive decimal ID"));
  }
  parsed.napi_id = napi_id;
  return parsed;
}

}  // namespace nictune::driver::knobs
