// SPDX-License-Identifier: Apache-2.0
// Label values for kernel numbers, spelled the way /proc and tools such as ss print them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/model/window.h"
#include "prometheus/labels.h"

namespace nictune::metrics {

// The kernel's softirq vector names in enum order (HI = 0 ... RCU = 9), as /proc/softirqs prints
// them; other numbers come out as decimal.
std::string SoftirqVectorName(uint32_t vector);

// "udp", "tcp", "icmp", "icmpv6", "sctp" for known transport protocols; otherwise the network
// protocol ("ipv4", "ipv6", "arp"), "other" for any other ethertype (a label value per ethertype
// would be 65536 of them), and "" when both are unknown.
std::string ProtocolName(uint16_t ethertype, uint8_t l4_protocol);

// /sys/class/net statistics file -> metric name, as node_exporter names its netdev counters:
// rx_packets -> nictune_network_receive_packets_total; multicast counts on receive and
// collisions on transmit.
std::string DeviceCounterMetricName(const std::string& statistic);

// The labels of a drop on /metrics and in history: reason, proto and device, so that their count
// is bounded by the kernel's drop reasons, a few protocols and the agent's own devices
// (docs/metrics.md "Series budget"). A device of another network namespace is counted under
// kOtherNamespacesDevice (two containers' eth0 are not the host's eth0, nor one device), a drop
// that found the probe's key map full under kUnattributed for both proto and device, and one the
// kernel counted but the sample did not see under kUnattributed for the device.
// A drop beyond the drop series cap (drop_series_cap.h) is kOverflow for all three labels: its
// count stays in the totals, its attribution is not split.
// Ports and sockets are the top sockets' series (nictune_socket_*).
inline constexpr char kOtherNamespacesDevice[] = "other_namespaces";
inline constexpr char kUnattributed[] = "unattributed";
inline constexpr char kOverflow[] = "overflow";
prometheus::Labels DropLabels(const model::DropWindow& drop);

// The labels of a NAPI instance's series on /metrics and in history: napi_id and device for the
// agent's own namespace, and one series for every instance of the other namespaces (device
// kOtherNamespacesDevice, no napi_id), so that containers do not multiply them.
prometheus::Labels NapiLabels(const model::NapiWindow& napi);

// A threaded NAPI poller's: its instance's, as NapiLabels; an --emulated_nic's TAP, whose
// instances the kernel gives no id, its device's alone (its pollers summed); every other
// namespace's, kOtherNamespacesDevice alone.
prometheus::Labels NapiPollerLabels(const model::NapiPoller& poller);

// `labels` and the CPU's, or `labels` alone when per-CPU series are off (the caller sums the
// CPUs' values under them).
prometheus::Labels WithCpu(prometheus::Labels labels, int cpu, bool per_cpu);

// The sockets that get their own series: the top max_sockets by drops in the window, then by
// peak fill (cardinality cap shared by /metrics and the store).
std::vector<const model::SocketWindow*> TopSockets(const std::vector<model::SocketWindow>& sockets,
                                                   size_t max_sockets);

}  // namespace nictune::metrics
