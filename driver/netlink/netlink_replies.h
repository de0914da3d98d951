// SPDX-License-Identifier: Apache-2.0
// What every netlink client here shares: opening a socket with extended acks and a receive
// timeout, and reading the replies to one request until its ack or the end of its dump, with
// kernel errors turned into statuses (netlink_error.h).
//
// A netlink socket belongs to the network namespace of the thread that opened it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct mnl_socket;
struct nlmsghdr;

namespace nictune::driver::netlink {

// Dump replies are built in skbs of up to 32 KiB; a smaller buffer would truncate them.
inline constexpr size_t kNetlinkReceiveBufferBytes = 64 * 1024;

struct MnlSocketCloser {
  void operator()(mnl_socket* socket) const;
};
// An open netlink socket, closed with its owner: the clients' moves and destructors are the
// defaults.
using NetlinkSocket = std::unique_ptr<mnl_socket, MnlSocketCloser>;

// Opens and binds a socket on `bus` (NETLINK_GENERIC, NETLINK_SOCK_DIAG) with extended acks,
// capped acks and a receive timeout. `name` names the bus in errors ("generic netlink").
absl::StatusOr<NetlinkSocket> OpenNetlinkSocket(int bus, const std::string& name);

// Reads the replies to request `sequence` until the kernel acks it or ends its dump. Each reply
// of `reply_type` goes to `on_reply`; its first error is kept and returned once the request
// ends, so that the socket stays in step. `what` names the request in errors.
absl::Status ReceiveReplies(mnl_socket* socket, uint32_t port_id, uint32_t sequence,
                            uint16_t reply_type, std::vector<char>& buffer, const std::string& what,
                            absl::FunctionRef<absl::Status(const nlmsghdr&)> on_reply);

}  // namespace nictune::driver::netlink
