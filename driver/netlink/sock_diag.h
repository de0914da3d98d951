// SPDX-License-Identifier: Apache-2.0
// A NETLINK_SOCK_DIAG client that dumps every UDP socket of a network namespace with its
// receive memory (INET_DIAG_SKMEMINFO): the figures `ss -u -m` shows.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "driver/netlink/netlink_replies.h"
#include "driver/netlink/inet_diag_reply.h"
#include "driver/socket_memory.h"

struct mnl_socket;
struct nlmsghdr;

namespace nictune::driver::netlink {

class SockDiagSocket {
 public:
  // Opens a socket in the calling thread's network namespace, which it stays in; that
  // namespace's inode is given for the sockets it lists.
  static absl::StatusOr<SockDiagSocket> Open(uint32_t netns_inode);

  SockDiagSocket(SockDiagSocket&& other) noexcept = default;
  SockDiagSocket& operator=(SockDiagSocket&& other) noexcept = default;
  SockDiagSocket(const SockDiagSocket&) = delete;
  SockDiagSocket& operator=(const SockDiagSocket&) = delete;
  ~SockDiagSocket() = default;

  // Every UDP socket of `family` (AF_INET, AF_INET6) in any state.
  absl::Status DumpUdp(uint8_t family, absl::FunctionRef<void(const SocketMemory&)> on_socket);

  uint32_t netns_inode() const { return netns_inode_; }

 private:
  SockDiagSocket(NetlinkSocket socket, uint32_t netns_inode);

  NetlinkSocket socket_;
  uint32_t port_id_ = 0;
  uint32_t next_sequence_ = 1;
  uint32_t netns_inode_ = 0;
  std::vector<char> receive_buffer_;
};

}  // namespace nictune::driver::netlink
