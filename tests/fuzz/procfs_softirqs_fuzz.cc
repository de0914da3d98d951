// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseSoftirqs: any bytes yield a table or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/procfs/softirqs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<nictune::procfs::SoftirqTable> table =
      nictune::procfs::ParseSoftirqs(text, "fuzz/softirqs");
  if (!table.ok()) return 0;
  for (const nictune::procfs::SoftirqRow& row : table->rows) {
    if (row.per_cpu.size() != table->cpu_ids.size() || row.vector.empty()) __builtin_trap();
  }
  return 0;
}
