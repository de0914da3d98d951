// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseProcStat: any bytes yield a ProcStat or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/procfs/stat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<nictune::procfs::ProcStat> stat =
      nictune::procfs::ParseProcStat(text, "fuzz/stat");
  if (!stat.ok()) return 0;
  if (stat->total.cpu != -1) __builtin_trap();
  for (const nictune::procfs::CpuTimes& cpu : stat->cpus) {
    if (cpu.cpu < 0) __builtin_trap();
  }
  return 0;
}
