#include "driver/netlink/genl_socket.h"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"

namespace nictune::driver::netlink {
namespace {

// Dump replies are built in skbs of up to 32 KiB; a smaller buffer would truncate them.
constexpr size_t kReceiveBufferBytes = 64 * 1024;
constexpr size_t kRequestBufferBytes = 8 * 1024;
// A reply that has not come in this long is not coming; better an error than a hung agent.
constexpr time_t kReceiveTimeoutSeconds = 5;

// The kernel's extended-ack text (NLMSGERR_ATTR_MSG) that follows `offset` bytes of payload.
std::string ExtendedAckMessage(const nlmsghdr& message, size_t offset) {
  if ((message.nlmsg_flags & NLM_F_ACK_TLVS) == 0) return "";
  if (mnl_nlmsg_get_payload_len(&message) < offset) return "";
  AttributeReader reader = AttributeReader::FromMessage(message, offset, "extended ack");
  return reader.String(NLMSGERR_ATTR_MSG, "NLMSGERR_ATTR_MSG").value_or("");
}

}  // namespace

bool FamilyHasCommand(const GenlFamily& family, uint32_t command) {
  return std::find(family.commands.begin(), family.commands.end(), command) !=
         family.commands.end();
}

GenlSocket::GenlSocket(mnl_socket* socket)
    : socket_(socket),
      port_id_(mnl_socket_get_portid(socket)),
      receive_buffer_(kReceiveBufferBytes) {}

GenlSocket::GenlSocket(GenlSocket&& other) noexcept
    : socket_(std::exchange(other.socket_, nullptr)),
      port_id_(other.port_id_),
      next_sequence_(other.next_sequence_),
      receive_buffer_(std::move(other.receive_buffer_)) {}

GenlSocket& GenlSocket::operator=(GenlSocket&& other) noexcept {
  if (this != &other) {
    if (socket_ != nullptr) mnl_socket_close(socket_);
    socket_ = std::exchange(other.socket_, nullptr);
    port_id_ = other.port_id_;
    next_sequence_ = other.next_sequence_;
    receive_buffer_ = std::move(other.receive_buffer_);
  }
  return *this;
}

GenlSocket::~GenlSocket() {
  if (socket_ != nullptr) mnl_socket_close(socket_);
}

absl::StatusOr<GenlSocket> GenlSocket::Open() {
  mnl_socket* socket = mnl_socket_open(NETLINK_GENERIC);
  if (socket == nullptr) return ErrnoStatus("generic netlink socket: open", errno);
  if (mnl_socket_bind(socket, 0, MNL_SOCKET_AUTOPID) < 0) {
    const int err = errno;
    mnl_socket_close(socket);
    return ErrnoStatus("generic netlink socket: bind", err);
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
    const int err = errno;
    mnl_socket_close(socket);
    return ErrnoStatus("generic netlink socket: setsockopt SO_RCVTIMEO", err);
  }
  return GenlSocket(socket);
}

absl::StatusOr<GenlFamily> GenlSocket::ResolveFamily(std::string_view name) {
  const std::string family_name(name);
  const RequestContext context{"nlctrl", "GETFAMILY", family_name};
  GenlFamily family;
  family.name = family_name;
  bool found = false;
  absl::Status status = Request(
      context, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, /*dump=*/false,
      [&](nlmsghdr& message) {
        mnl_attr_put_strz(&message, CTRL_ATTR_FAMILY_NAME, family_name.c_str());
      },
      [&](const nlmsghdr& message) -> absl::Status {
        AttributeReader reader =
            AttributeReader::FromMessage(message, sizeof(genlmsghdr), DescribeRequest(context));
        const std::optional<uint16_t> id = reader.U16(CTRL_ATTR_FAMILY_ID, "CTRL_ATTR_FAMILY_ID");
        family.version = reader.U32(CTRL_ATTR_VERSION, "CTRL_ATTR_VERSION").value_or(0);
        if (const nlattr* ops = reader.Get(CTRL_ATTR_OPS); ops != nullptr) {
          AttributeReader op_list =
              AttributeReader::FromNested(*ops, DescribeRequest(context) + " CTRL_ATTR_OPS");
          for (const nlattr* op : op_list.attributes()) {
            AttributeReader fields =
                AttributeReader::FromNested(*op, DescribeRequest(context) + " CTRL_ATTR_OPS entry");
            if (std::optional<uint32_t> command = fields.U32(CTRL_ATTR_OP_ID, "CTRL_ATTR_OP_ID")) {
              family.commands.push_back(*command);
            }
            if (!fields.status().ok()) return fields.status();
          }
          if (!op_list.status().ok()) return op_list.status();
        }
        if (!reader.status().ok()) return reader.status();
        if (!id) {
          return absl::DataLossError(
              absl::StrCat(DescribeRequest(context), ": reply has no CTRL_ATTR_FAMILY_ID"));
        }
        family.id = *id;
        found = true;
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (!found) {
    return absl::DataLossError(
        absl::StrCat(DescribeRequest(context), ": kernel acked without a reply"));
  }
  return family;
}

absl::Status GenlSocket::Request(const RequestContext& context, uint16_t family_id, uint8_t command,
                                 uint8_t version, bool dump, AttributeWriter write_attributes,
                                 ReplyHandler on_reply) {
  const std::string what = DescribeRequest(context);
  char request[kRequestBufferBytes];
  nlmsghdr* message = mnl_nlmsg_put_header(request);
  message->nlmsg_type = family_id;
  // A do-request asks for an ack so that its end is explicit; a dump ends with NLMSG_DONE.
  message->nlmsg_flags = static_cast<uint16_t>(NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK));
  const uint32_t sequence = next_sequence_++;
  message->nlmsg_seq = sequence;
  auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(message, sizeof(genlmsghdr)));
  genl->cmd = command;
  genl->version = version;
  write_attributes(*message);

  if (mnl_socket_sendto(socket_, message, message->nlmsg_len) < 0) {
    return ErrnoStatus(absl::StrCat(what, ": send"), errno);
  }

  absl::Status handler_status;
  while (true) {
    const ssize_t received =
        mnl_socket_recvfrom(socket_, receive_buffer_.data(), receive_buffer_.size());
    if (received < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return absl::UnavailableError(
            absl::StrCat(what, ": no reply within ", kReceiveTimeoutSeconds, " s"));
      }
      return ErrnoStatus(absl::StrCat(what, ": receive"), errno);
    }
    int remaining = static_cast<int>(received);
    for (const auto* reply = reinterpret_cast<const nlmsghdr*>(receive_buffer_.data());
         mnl_nlmsg_ok(reply, remaining); reply = mnl_nlmsg_next(reply, &remaining)) {
      // Replies to an earlier request that gave up (timeout) may still arrive: skip them.
      if (!mnl_nlmsg_portid_ok(reply, port_id_) || !mnl_nlmsg_seq_ok(reply, sequence)) continue;
      if ((reply->nlmsg_flags & NLM_F_DUMP_INTR) != 0 && handler_status.ok()) {
        handler_status = absl::UnavailableError(
            absl::StrCat(what, ": dump interrupted by a concurrent change; retry"));
      }
      switch (reply->nlmsg_type) {
        case NLMSG_NOOP:
          continue;
        case NLMSG_OVERRUN:
          return absl::DataLossError(absl::StrCat(what, ": netlink overrun"));
        case NLMSG_ERROR: {
          if (mnl_nlmsg_get_payload_len(reply) < sizeof(nlmsgerr)) {
            return absl::DataLossError(absl::StrCat(what, ": truncated NLMSG_ERROR"));
          }
          const auto* error = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(reply));
          if (error->error == 0) return handler_status;  // the ack
          size_t ack_offset = sizeof(nlmsgerr);
          if ((reply->nlmsg_flags & NLM_F_CAPPED) == 0) {
            ack_offset += error->msg.nlmsg_len - sizeof(nlmsghdr);
          }
          return ErrnoStatus(what, -error->error, ExtendedAckMessage(*reply, ack_offset));
        }
        case NLMSG_DONE: {
          int error = 0;
          if (mnl_nlmsg_get_payload_len(reply) >= sizeof(int)) {
            error = *static_cast<const int*>(mnl_nlmsg_get_payload(reply));
          }
          if (error < 0) return ErrnoStatus(what, -error, ExtendedAckMessage(*reply, sizeof(int)));
          return handler_status;
        }
        default:
          if (reply->nlmsg_type != family_id) continue;
          if (absl::Status status = on_reply(*reply); !status.ok() && handler_status.ok()) {
            handler_status = std::move(status);
          }
      }
    }
  }
}

}  // namespace nictune::driver::netlink
