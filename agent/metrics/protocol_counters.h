// SPDX-License-Identifier: Apache-2.0
// The counters of /proc/net/snmp and /proc/net/netstat that /metrics exports, those that bear on
// receive drops and load (the rest are left to node_exporter), with their snake_case names:
// promtool rejects node_exporter's spelling (node_netstat_Udp_RcvbufErrors), so the two differ
// by a rule a join can follow (tests/bpf/node_exporter_agreement_test.cc holds them to it).
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace nictune::metrics {

struct ProtocolCounterName {
  absl::string_view section;  // "Udp", "TcpExt", ... as the file prints it
  absl::string_view name;     // "RcvbufErrors"
  absl::string_view metric;   // "udp_rcvbuf_errors": nictune_netstat_<metric>_total
};

inline constexpr ProtocolCounterName kProtocolCounters[] = {
    {"Ip", "InReceives", "ip_in_receives"},
    {"Ip", "InDiscards", "ip_in_discards"},
    {"Ip", "InDelivers", "ip_in_delivers"},
    {"Udp", "InDatagrams", "udp_in_datagrams"},
    {"Udp", "NoPorts", "udp_no_ports"},
    {"Udp", "InErrors", "udp_in_errors"},
    {"Udp", "OutDatagrams", "udp_out_datagrams"},
    {"Udp", "RcvbufErrors", "udp_rcvbuf_errors"},
    {"Udp", "SndbufErrors", "udp_sndbuf_errors"},
    {"Udp", "InCsumErrors", "udp_in_csum_errors"},
    {"Udp", "MemErrors", "udp_mem_errors"},
    {"Tcp", "InSegs", "tcp_in_segs"},
    {"Tcp", "OutSegs", "tcp_out_segs"},
    {"Tcp", "RetransSegs", "tcp_retrans_segs"},
    {"Tcp", "InErrs", "tcp_in_errs"},
    {"TcpExt", "TCPBacklogDrop", "tcpext_backlog_drop"},
    {"TcpExt", "TCPRcvQDrop", "tcpext_rcvq_drop"},
    {"TcpExt", "PruneCalled", "tcpext_prune_called"},
    {"TcpExt", "RcvPruned", "tcpext_rcv_pruned"},
    {"TcpExt", "OfoPruned", "tcpext_ofo_pruned"},
    {"TcpExt", "TCPRcvCollapsed", "tcpext_rcv_collapsed"},
    {"TcpExt", "ListenOverflows", "tcpext_listen_overflows"},
    {"TcpExt", "ListenDrops", "tcpext_listen_drops"},
};

// The file the counter is read from: TcpExt is in /proc/net/netstat, the rest in /proc/net/snmp.
inline absl::string_view ProtocolCounterFile(const ProtocolCounterName& counter) {
  return counter.section == "TcpExt" ? "/proc/net/netstat" : "/proc/net/snmp";
}

// nictune_netstat_udp_rcvbuf_errors_total
inline std::string ProtocolCounterMetric(const ProtocolCounterName& counter) {
  return absl::StrCat("nictune_netstat_", counter.metric, "_total");
}

// node_exporter's name for the same counter: node_netstat_Udp_RcvbufErrors
inline std::string NodeExporterProtocolCounterMetric(const ProtocolCounterName& counter) {
  return absl::StrCat("node_netstat_", counter.section, "_", counter.name);
}

}  // namespace nictune::metrics
