#include "agent/metrics/label_values.h"

#include <array>
#include <string_view>

#include "absl/strings/str_format.h"

namespace nictune::metrics {

std::string SoftirqVectorName(uint32_t vector) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
  if (vector < kNames.size()) return std::string(kNames[vector]);
  return std::to_string(vector);
}

std::string ProtocolName(uint16_t ethertype, uint8_t l4_protocol) {
  switch (l4_protocol) {
    case 1:
      return "icmp";
    case 6:
      return "tcp";
    case 17:
      return "udp";
    case 58:
      return "icmpv6";
    case 132:
      return "sctp";
    default:
      break;
  }
  switch (ethertype) {
    case 0:
      return "";
    case 0x0800:
      return "ipv4";
    case 0x0806:
      return "arp";
    case 0x86dd:
      return "ipv6";
    default:
      return absl::StrFormat("0x%04x", ethertype);
  }
}

}  // namespace nictune::metrics
