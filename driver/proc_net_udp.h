// SPDX-License-Identifier: Apache-2.0
// /proc/net/udp and /proc/net/udp6: the socket census' fallback where sock_diag cannot answer
// (udp_diag not loaded, netlink refused). Each line gives a socket's local port, its queued bytes
// (rx_queue: rmem_alloc less the reader's forward deficit, equal to it for a socket not being
// read), its inode and its drops; the file has no socket cookie and no buffer size.
#pragma once

#include <cstdint>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "driver/socket_memory.h"

namespace nictune::driver {

// The key a socket read from /proc/net/udp has in place of its cookie, which the file lacks:
// the top bit set, which no kernel cookie (a count from 1) reaches, then the namespace's and the
// socket's inodes. Unique per socket, stable while it lives.
uint64_t ProcSocketKey(uint32_t netns_inode, uint32_t socket_inode);

// The sockets of one file's `text` (`file` names it in errors), of `family` (AF_INET for
// /proc/net/udp, AF_INET6 for udp6) in the namespace `netns_inode`; rcvbuf is 0 (unknown). A
// line that does not parse fails the whole file with its number and text.
absl::StatusOr<std::vector<SocketMemory>> ParseProcNetUdp(absl::string_view text,
                                                          absl::string_view file, uint16_t family,
                                                          uint32_t netns_inode);

}  // namespace nictune::driver
