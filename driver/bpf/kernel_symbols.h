// SPDX-License-Identifier: Apache-2.0
// Code ranges of kernel functions from /proc/kallsyms (root sees real addresses).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::driver::bpf {

struct CodeRange {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive: the next symbol's address
};

// The text of /proc/kallsyms.
absl::StatusOr<std::string> ReadKallsyms();

// The range of function `name` in kallsyms text: its address up to the next higher symbol.
// Fails when the function is absent (inlined, or another kernel) or addresses are hidden
// (kptr_restrict shows zeros).
absl::StatusOr<CodeRange> FindFunctionRange(absl::string_view kallsyms, absl::string_view name);

}  // namespace nictune::driver::bpf
