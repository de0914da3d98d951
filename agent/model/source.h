// SPDX-License-Identifier: Apache-2.0
// Where a figure came from. Every figure nictune reports names its source, so a reader can tell a
// BPF-measured handler time from a /proc/stat tick estimate.
#pragma once

#include <string>
#include <string_view>

namespace nictune::model {

// kEmulatedNic: an emulated NIC's own counters over its control socket (driver/emulated).
// kSockDiag: the kernel's per-socket counters over NETLINK_SOCK_DIAG (driver/socket_memory.h).
enum class Source {
  kBpf,
  kProcfs,
  kSysfs,
  kEthtoolNetlink,
  kNetdevNetlink,
  kEmulatedNic,
  kSockDiag,
  kRtnetlink
};

std::string_view SourceName(Source source);

// One input of a snapshot: whether it was read, and if not, why (the error with file and errno).
struct SourceState {
  std::string name;  // "bpf", "/proc/interrupts", "/sys/class/net", ...
  Source source = Source::kProcfs;
  bool in_use = false;
  std::string detail;  // why it is not in use, or what it provided
};

}  // namespace nictune::model
