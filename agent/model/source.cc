// SPDX-License-Identifier: Apache-2.0
#include "agent/model/source.h"

namespace nictune::model {

std::string_view SourceName(Source source) {
  switch (source) {
    case Source::kBpf:
      return "bpf";
    case Source::kProcfs:
      return "procfs";
    case Source::kSysfs:
      return "sysfs";
    case Source::kEthtoolNetlink:
      return "ethtool-netlink";
    case Source::kNetdevNetlink:
      return "netdev-netlink";
    case Source::kEmulatedNic:
      return "emulated NIC counters";
    case Source::kSockDiag:
      return "sock_diag";
    case Source::kRtnetlink:
      return "rtnetlink";
  }
  return "unknown";
}

}  // namespace nictune::model
