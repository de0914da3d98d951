// Label values for kernel numbers, spelled the way /proc and tools such as ss print them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/model/window.h"

namespace nictune::metrics {

// The kernel's softirq vector names in enum order (HI = 0 ... RCU = 9), as /proc/softirqs prints
// them; other numbers come out as decimal.
std::string SoftirqVectorName(uint32_t vector);

// "udp", "tcp", "icmp", "icmpv6" for known transport protocols; otherwise the network protocol
// ("ipv4", "ipv6", "arp") or its ethertype in hex ("0x88cc"); "" when both are unknown.
std::string ProtocolName(uint16_t ethertype, uint8_t l4_protocol);

// /sys/class/net statistics file -> metric name, as node_exporter names its netdev counters:
// rx_packets -> nictune_network_receive_packets_total; multicast counts on receive and
// collisions on transmit.
std::string DeviceCounterMetricName(const std::string& statistic);

// The "port" label of a drop: kept only where a socket took the packet. Those ports are bounded
// by the sockets that exist; the port of a packet no socket wanted is whatever a scanner sent.
std::string DropPortLabel(const std::string& reason_name, uint64_t socket_cookie,
                          uint16_t local_port);

// The sockets that get their own series: the top max_sockets by drops in the window, then by
// peak fill (cardinality cap shared by /metrics and the store).
std::vector<const model::SocketWindow*> TopSockets(const std::vector<model::SocketWindow>& sockets,
                                                   size_t max_sockets);

}  // namespace nictune::metrics
