// SPDX-License-Identifier: Apache-2.0
// The kernel's own per-socket receive figures, read for every UDP socket in every network
// namespace the agent can see, at no cost per packet: bytes queued, buffer size and drops
// (sock_diag INET_DIAG_SKMEMINFO; /proc/net/udp, without the buffer size, where sock_diag cannot
// answer). They are exact where the probes' per-packet events are a
// sample or absent, and they hold for a socket that filled before the agent started.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::driver {

struct SocketMemory {
  uint64_t cookie = 0;  // the kernel's socket cookie, as the BPF probes key sockets
  uint16_t family = 0;  // AF_INET or AF_INET6
  uint8_t protocol = 0;
  uint16_t local_port = 0;
  uint32_t netns_inode = 0;
  uint32_t inode = 0;       // the socket's inode, as ss and /proc/PID/fd show it
  uint32_t rmem_alloc = 0;  // bytes queued for the reader (SK_MEMINFO_RMEM_ALLOC)
  uint32_t rcvbuf = 0;      // sk_rcvbuf
  uint32_t drops = 0;       // sk_drops since the socket was created (SK_MEMINFO_DROPS)
};

// A network namespace's /proc/net/snmp and /proc/net/netstat as the thread that dumped its
// sockets read them from inside it: the namespace's own protocol counters (Udp.RcvbufErrors,
// TcpExt's receive-queue and backlog drops: exact), at two file reads more. A file that could
// not be read whole is "".
struct NamespaceCountersText {
  uint32_t netns_inode = 0;
  std::string snmp;
  std::string netstat;
};

struct SocketCensus {
  // The sockets worth keeping: those that dropped or hold data, the most dropping and fullest
  // first, at most SocketCensusOptions::max_sockets of them.
  std::vector<SocketMemory> sockets;
  uint64_t sockets_seen = 0;       // every UDP socket the dumps listed
  uint32_t namespaces = 0;         // network namespaces read
  uint32_t namespaces_unread = 0;  // beyond max_namespaces, or whose dump failed
  bool truncated = false;          // some sockets worth keeping were left out
  // Namespaces a fallback lister read because the first one failed there (sock_diag without
  // udp_diag, say): their sockets have no buffer size. The note names the fallback and the first
  // failure ("/proc/net/udp where sock_diag failed: ...").
  uint32_t namespaces_by_fallback = 0;
  std::string fallback_note;
  // Of each namespace read but the reader's own, whose files the agent reads with the rest of
  // procfs; a namespace whose files could not be read is left out.
  std::vector<NamespaceCountersText> counters;
};

struct SocketCensusOptions {
  uint32_t max_sockets = 1024;
  uint32_t max_namespaces = 64;
};

// One way of listing the UDP sockets of the calling thread's network namespace.
class UdpSocketLister {
 public:
  virtual ~UdpSocketLister() = default;
  // "sock_diag", "/proc/net/udp": how the census' note names it.
  virtual std::string_view name() const = 0;
  // Every UDP socket of the calling thread's namespace, whose inode is `netns_inode`, or the
  // error that stopped the listing; the census keeps nothing of a listing that failed.
  virtual absl::Status List(uint32_t netns_inode,
                            absl::FunctionRef<void(const SocketMemory&)> on_socket) = 0;
};

// sock_diag (INET_DIAG_SKMEMINFO): every figure, and the socket cookie the probes key by.
std::unique_ptr<UdpSocketLister> SockDiagUdpLister();
// /proc/net/udp and udp6 (proc_net_udp.h): no cookie and no buffer size.
std::unique_ptr<UdpSocketLister> ProcNetUdpLister();

class SocketCensusSource {
 public:
  virtual ~SocketCensusSource() = default;
  // Fails only when no namespace could be read; one that fails is counted in namespaces_unread.
  virtual absl::StatusOr<SocketCensus> Read() = 0;
};

// The agent's own network namespace, every one under /run/netns, and every one a process under
// `proc_root` ("/proc") is in, each listed by the first of `listers` that answers there.
std::unique_ptr<SocketCensusSource> OpenSocketCensus(
    const SocketCensusOptions& options, const std::string& proc_root,
    std::vector<std::unique_ptr<UdpSocketLister>> listers);

// OpenSocketCensus with sock_diag, and /proc/net/udp where sock_diag fails.
std::unique_ptr<SocketCensusSource> OpenSockDiagCensus(const SocketCensusOptions& options,
                                                       const std::string& proc_root);

}  // namespace nictune::driver
