// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for ParseProcNetUdp (/proc/net/udp, the socket census' fallback): any bytes
// yield sockets or an error, never a crash.
#include <netinet/in.h>

#include <cstddef>
#include <cstdint>

#include "driver/proc_net_udp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::vector<nictune::driver::SocketMemory>> sockets =
      nictune::driver::ParseProcNetUdp(text, "fuzz/udp", AF_INET, 1);
  if (!sockets.ok()) return 0;
  for (const nictune::driver::SocketMemory& s : *sockets) {
    if (s.rcvbuf != 0 || s.cookie != nictune::driver::ProcSocketKey(1, s.inode)) __builtin_trap();
  }
  return 0;
}
