// SPDX-License-Identifier: Apache-2.0
// The words every knob message starts with: "<knob> on <target>: ", and "unsupported: " before a
// kernel's EOPNOTSUPP text, so that a log line says which knob, where, and what state.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "driver/knobs/knob_access.h"

namespace nictune::driver::knobs {

// "rx_usecs on eth0".
std::string DescribeKnob(const KnobAddress& address);

// `status` with "<what>: " (and "unsupported: " when it is Unimplemented) before its message; the
// code is kept so callers can still branch on it.
absl::Status InKnobContext(const absl::Status& status, absl::string_view what);

}  // namespace nictune::driver::knobs
