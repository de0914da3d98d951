// SPDX-License-Identifier: Apache-2.0
#include "agent/actuate/knob_key.h"

#include "absl/strings/str_cat.h"

namespace nictune::actuate {
namespace {

absl::string_view NameOf(tuner::Knob knob) {
  const std::string_view name = tuner::KnobName(knob);
  return absl::string_view(name.data(), name.size());
}

}  // namespace

std::string KnobKey(const driver::knobs::KnobAddress& address) {
  return absl::StrCat(NameOf(address.knob), "@", address.target);
}

std::string DescribeKnob(const driver::knobs::KnobAddress& address) {
  return absl::StrCat(NameOf(address.knob), " ", address.target);
}

std::optional<tuner::Knob> ParseKnobName(absl::string_view name) {
  for (tuner::Knob knob : tuner::kAllKnobs) {
    if (NameOf(knob) == name) return knob;
  }
  return std::nullopt;
}

}  // namespace nictune::actuate
