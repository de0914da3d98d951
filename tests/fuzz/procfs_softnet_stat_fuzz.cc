// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseSoftnetStat: any bytes yield rows or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/procfs/softnet_stat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::vector<nictune::procfs::SoftnetRow>> rows =
      nictune::procfs::ParseSoftnetStat(text, "fuzz/softnet_stat");
  if (!rows.ok()) return 0;
  for (const nictune::procfs::SoftnetRow& row : *rows) {
    if (row.columns < 9 || row.columns != rows->front().columns) __builtin_trap();
    if (row.received_rps.has_value() != (row.columns >= 10)) __builtin_trap();
    if (row.cpu_from_kernel != (row.columns >= 13)) __builtin_trap();
  }
  return 0;
}
