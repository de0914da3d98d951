// SPDX-License-Identifier: Apache-2.0
// Whether tracefs is mounted, for `nictuned --check`: libbpf attaches a tracepoint program by the
// event's id, which it reads under tracefs, so without it those programs fail to attach.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nictune::check {

// The directory tracefs is mounted at (/sys/kernel/tracing, or the older debugfs path); NotFound
// saying how to mount it when neither holds its events.
absl::StatusOr<std::string> CheckTracefs();

}  // namespace nictune::check
