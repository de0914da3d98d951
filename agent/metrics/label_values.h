// Label values for kernel numbers, spelled the way /proc and tools such as ss print them.
#pragma once

#include <cstdint>
#include <string>

namespace nictune::metrics {

// The kernel's softirq vector names in enum order (HI = 0 ... RCU = 9), as /proc/softirqs prints
// them; other numbers come out as decimal.
std::string SoftirqVectorName(uint32_t vector);

// "udp", "tcp", "icmp", "icmpv6" for known transport protocols; otherwise the network protocol
// ("ipv4", "ipv6", "arp") or its ethertype in hex ("0x88cc"); "" when both are unknown.
std::string ProtocolName(uint16_t ethertype, uint8_t l4_protocol);

}  // namespace nictune::metrics
