// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/knob_status.h"

#include <string_view>

#include "absl/strings/str_cat.h"

namespace nictune::driver::knobs {

std::string DescribeKnob(const KnobAddress& address) {
  const std::string_view name = tuner::KnobName(address.knob);
  return absl::StrCat(absl::string_view(name.data(), name.size()), " on ", address.target);
}

absl::Status InKnobContext(const absl::Status& status, absl::string_view what) {
  if (status.ok()) return status;
  const absl::string_view state =
      status.code() == absl::StatusCode::kUnimplemented ? "unsupported: " : "";
  return absl::Status(status.code(), absl::StrCat(what, ": ", state, status.message()));
}

}  // namespace nictune::driver::knobs
