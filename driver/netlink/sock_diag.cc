// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/sock_diag.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"
#include "driver/netlink/netlink_error.h"
#include "driver/netlink/netlink_replies.h"

namespace nictune::driver::netlink {
namespace {

// Every TCP state bit: UDP sockets report TCP_CLOSE (unbound or unconnected) or
// TCP_ESTABLISHED (connected); asking for all keeps both.
constexpr uint32_t kAllStates = 0xffffffff;
constexpr size_t kSockDiagRequestBytes = 256;

}  // namespace

SockDiagSocket::SockDiagSocket(NetlinkSocket socket, uint32_t netns_inode)
    : socket_(std::move(socket)),
      port_id_(mnl_socket_get_portid(socket_.get())),
      netns_inode_(netns_inode),
      receive_buffer_(kNetlinkReceiveBufferBytes) {}

absl::StatusOr<SockDiagSocket> SockDiagSocket::Open(uint32_t netns_inode) {
  absl::StatusOr<NetlinkSocket> socket =
      OpenNetlinkSocket(NETLINK_SOCK_DIAG, "sock_diag netlink");
  if (!socket.ok()) return socket.status();
  return SockDiagSocket(*std::move(socket), netns_inode);
}

absl::Status SockDiagSocket::DumpUdp(uint8_t family,
                                     absl::FunctionRef<void(const SocketMemory&)> on_socket) {
  const std::string what = absl::StrCat("sock_diag netlink SOCK_DIAG_BY_FAMILY UDP ",
                                        family == AF_INET6 ? "IPv6" : "IPv4", " in netns ",
                                        netns_inode_);
  char request[kSockDiagRequestBytes];
  nlmsghdr* message = mnl_nlmsg_put_header(request);
  message->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  const uint32_t sequence = next_sequence_++;
  message->nlmsg_seq = sequence;
  auto* diag =
      static_cast<inet_diag_req_v2*>(mnl_nlmsg_put_extra_header(message, sizeof(inet_diag_req_v2)));
  diag->sdiag_family = family;
  diag->sdiag_protocol = IPPROTO_UDP;
  diag->idiag_states = kAllStates;
  diag->idiag_ext = 1 << (INET_DIAG_SKMEMINFO - 1);
  if (mnl_socket_sendto(socket_.get(), message, message->nlmsg_len) < 0) {
    return ErrnoStatus(absl::StrCat(what, ": send"), errno);
  }
  const auto on_reply = [&](const nlmsghdr& reply) -> absl::Status {
    absl::StatusOr<SocketMemory> socket = ParseInetDiagReply(reply, netns_inode_);
    if (!socket.ok()) {
      return absl::Status(socket.status().code(),
                          absl::StrCat(what, ": ", socket.status().message()));
    }
    on_socket(*socket);
    return absl::OkStatus();
  };
  return ReceiveReplies(socket_.get(), port_id_, sequence, SOCK_DIAG_BY_FAMILY, receive_buffer_,
                        what, on_reply);
}

}  // namespace nictune::driver::netlink
