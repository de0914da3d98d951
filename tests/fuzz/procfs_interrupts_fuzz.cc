// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseInterrupts: any bytes yield a table or an error, never a crash, and a
// table that is returned keeps the invariants its users rely on.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/procfs/interrupts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<nictune::procfs::InterruptTable> table =
      nictune::procfs::ParseInterrupts(text, "fuzz/interrupts");
  if (!table.ok()) return 0;
  if (table->cpu_count != static_cast<int>(table->cpu_ids.size())) __builtin_trap();
  for (const nictune::procfs::InterruptLine& line : table->lines) {
    const bool one_total = line.per_cpu.empty() && !line.irq.has_value();
    if (!one_total && line.per_cpu.size() != table->cpu_ids.size()) __builtin_trap();
    uint64_t sum = 0;
    for (uint64_t count : line.per_cpu) sum += count;
    if (!line.per_cpu.empty() && sum != line.total) __builtin_trap();
  }
  return 0;
}
