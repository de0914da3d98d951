// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseSnmp (/proc/net/snmp and /proc/net/netstat): any bytes yield counters
// or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/procfs/snmp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<nictune::procfs::SnmpCounters> counters =
      nictune::procfs::ParseSnmp(text, "fuzz/snmp");
  if (!counters.ok()) return 0;
  for (const auto& [section, values] : *counters) {
    if (section.empty() || values.empty()) __builtin_trap();
  }
  return 0;
}
