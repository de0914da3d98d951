// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/netlink_replies.h"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::netlink {
namespace {

// A reply that has not come in this long is not coming; better an error than a hung agent.
constexpr time_t kReceiveTimeoutSeconds = 5;

// The kernel's extended-ack text (NLMSGERR_ATTR_MSG) that follows `offset` bytes of payload.
std::string ExtendedAckMessage(const nlmsghdr& message, size_t offset) {
  if ((message.nlmsg_flags & NLM_F_ACK_TLVS) == 0) return "";
  if (mnl_nlmsg_get_payload_len(&message) < offset) return "";
  AttributeReader reader = AttributeReader::FromMessage(message, offset, "extended ack");
  return reader.String(NLMSGERR_ATTR_MSG, "NLMSGERR_ATTR_MSG").value_or("");
}

// How a reply ends the request: OK for its ack or the end of its dump, the kernel's error, or
// nullopt when it does not end it (a reply with data, or NLMSG_NOOP).
std::optional<absl::Status> EndOfRequest(const nlmsghdr& reply, const std::string& what) {
  switch (reply.nlmsg_type) {
    case NLMSG_OVERRUN:
      return absl::DataLossError(absl::StrCat(what, ": netlink overrun"));
    case NLMSG_ERROR: {
      if (mnl_nlmsg_get_payload_len(&reply) < sizeof(nlmsgerr)) {
        return absl::DataLossError(absl::StrCat(what, ": truncated NLMSG_ERROR"));
      }
      const auto* error = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(&reply));
      if (error->error == 0) return absl::OkStatus();  // the ack
      size_t ack_offset = sizeof(nlmsgerr);
      if ((reply.nlmsg_flags & NLM_F_CAPPED) == 0) {
        ack_offset += error->msg.nlmsg_len - sizeof(nlmsghdr);
      }
      return ErrnoStatus(what, -error->error, ExtendedAckMessage(reply, ack_offset));
    }
    case NLMSG_DONE: {
      int error = 0;
      if (mnl_nlmsg_get_payload_len(&reply) >= sizeof(int)) {
        error = *static_cast<const int*>(mnl_nlmsg_get_payload(&reply));
      }
      if (error < 0) return ErrnoStatus(what, -error, ExtendedAckMessage(reply, sizeof(int)));
      return absl::OkStatus();
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

void MnlSocketCloser::operator()(mnl_socket* socket) const { mnl_socket_close(socket); }

absl::StatusOr<NetlinkSocket> OpenNetlinkSocket(int bus, const std::string& name) {
  NetlinkSocket owned(mnl_socket_open(bus));
  mnl_socket* socket = owned.get();
  if (socket == nullptr) return ErrnoStatus(absl::StrCat(name, " socket: open"), errno);
  if (mnl_socket_bind(socket, 0, MNL_SOCKET_AUTOPID) < 0) {
    return ErrnoStatus(absl::StrCat(name, " socket: bind"), errno);
  }
  // Extended acks carry the kernel's reason text; capped acks keep error replies small. Kernels
  // without them (before 4.12) still work, with errno-only messages.
  int one = 1;
  mnl_socket_setsockopt(socket, NETLINK_EXT_ACK, &one, sizeof one);
  mnl_socket_setsockopt(socket, NETLINK_CAP_ACK, &one, sizeof one);
  timeval timeout{};
  timeout.tv_sec = kReceiveTimeoutSeconds;
  if (setsockopt(mnl_socket_get_fd(socket), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) <
      0) {
    return ErrnoStatus(absl::StrCat(name, " socket: setsockopt SO_RCVTIMEO"), errno);
  }
  return owned;
}

absl::Status ReceiveReplies(mnl_socket* socket, uint32_t port_id, uint32_t sequence,
                            uint16_t reply_type, std::vector<char>& buffer, const std::string& what,
                            absl::FunctionRef<absl::Status(const nlmsghdr&)> on_reply) {
  absl::Status handler_status;
  while (true) {
    const ssize_t received = mnl_socket_recvfrom(socket, buffer.data(), buffer.size());
    if (received < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return absl::UnavailableError(
            absl::StrCat(what, ": no reply within ", kReceiveTimeoutSeconds, " s"));
      }
      return ErrnoStatus(absl::StrCat(what, ": receive"), errno);
    }
    int remaining = static_cast<int>(received);
    for (const auto* reply = reinterpret_cast<const nlmsghdr*>(buffer.data());
         mnl_nlmsg_ok(reply, remaining); reply = mnl_nlmsg_next(reply, &remaining)) {
      // Replies to an earlier request that gave up (timeout) may still arrive: skip them.
      if (!mnl_nlmsg_portid_ok(reply, port_id) || !mnl_nlmsg_seq_ok(reply, sequence)) continue;
      if ((reply->nlmsg_flags & NLM_F_DUMP_INTR) != 0 && handler_status.ok()) {
        handler_status = absl::UnavailableError(
            absl::StrCat(what, ": dump interrupted by a concurrent change; retry"));
      }
      if (std::optional<absl::Status> end = EndOfRequest(*reply, what)) {
        return end->ok() ? handler_status : *end;
      }
      if (reply->nlmsg_type != reply_type) continue;
      if (absl::Status status = on_reply(*reply); !status.ok() && handler_status.ok()) {
        handler_status = std::move(status);
      }
    }
  }
}

}  // namespace nictune::driver::netlink
