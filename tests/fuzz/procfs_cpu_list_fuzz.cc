// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseCpuList: any bytes yield a sorted, duplicate-free list of CPUs or an
// error, never a crash or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/procfs/cpu_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::vector<int>> cpus = nictune::procfs::ParseCpuList(text, "fuzz/list");
  if (!cpus.ok()) return 0;
  if (cpus->empty()) __builtin_trap();
  for (size_t i = 1; i < cpus->size(); ++i) {
    if ((*cpus)[i - 1] >= (*cpus)[i]) __builtin_trap();
  }
  return 0;
}
