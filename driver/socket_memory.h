// SPDX-License-Identifier: Apache-2.0
// The kernel's own per-socket receive figures, read for every UDP socket in every network
// namespace the agent can see, at no cost per packet: bytes queued, buffer size and drops
// (sock_diag INET_DIAG_SKMEMINFO). They are exact where the probes' per-packet events are a
// sample or absent, and they hold for a socket that filled before the agent started.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

// A network namespace's /proc/net/snmp as the thread that dumped its sockets read it from inside
// it: the namespace's own protocol counters (Udp.RcvbufErrors, exact), at one file read more.
struct NamespaceSnmpText {
  uint32_t netns_inode = 0;
  std::string text;
};

struct SocketCensus {
  // The sockets worth keeping: those that dropped or hold data, the most dropping and fullest
  // first, at most SocketCensusOptions::max_sockets of them.
  std::vector<SocketMemory> sockets;
  uint64_t sockets_seen = 0;       // every UDP socket the dumps listed
  uint32_t namespaces = 0;         // network namespaces read
  uint32_t namespaces_unread = 0;  // beyond max_namespaces, or whose dump failed
  bool truncated = false;          // some sockets worth keeping were left out
  // Of each namespace read but the reader's own, whose file the agent reads with the rest of
  // procfs; a namespace whose file could not be read is left out.
  std::vector<NamespaceSnmpText> snmp;
};

struct SocketCensusOptions {
  uint32_t max_sockets = 1024;
  uint32_t max_namespaces = 64;
};

class SocketCensusSource {
 public:
  virtual ~SocketCensusSource() = default;
  // Fails only when no namespace could be read; one that fails is counted in namespaces_unread.
  virtual absl::StatusOr<SocketCensus> Read() = 0;
};

// sock_diag in the agent's own network namespace, every one under /run/netns, and every one a
// process under `proc_root` ("/proc") is in.
std::unique_ptr<SocketCensusSource> OpenSockDiagCensus(const SocketCensusOptions& options,
                                                       const std::string& proc_root);

}  // namespace nictune::driver
