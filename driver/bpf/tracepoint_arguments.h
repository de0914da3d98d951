// SPDX-License-Identifier: Apache-2.0
// What the running kernel's BTF says of a tracepoint before any program loads: whether it exists
// and how many arguments it passes, for concerns with variants per kernel.
#pragma once

#include <optional>

#include "absl/strings/string_view.h"

namespace nictune::driver::bpf {

// The arguments of tracepoint `event` (btf_trace_EVENT's prototype, less its leading void*);
// nullopt when the kernel has no such tracepoint or no BTF to say.
std::optional<int> TracepointArguments(absl::string_view event);

}  // namespace nictune::driver::bpf
