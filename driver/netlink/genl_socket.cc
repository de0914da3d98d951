// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/genl_socket.h"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"
#include "driver/netlink/netlink_replies.h"

namespace nictune::driver::netlink {
namespace {

constexpr size_t kGenlRequestBytes = 8 * 1024;

}  // namespace

bool FamilyHasCommand(const GenlFamily& family, uint32_t command) {
  return std::find(family.commands.begin(), family.commands.end(), command) !=
         family.commands.end();
}

GenlSocket::GenlSocket(NetlinkSocket socket)
    : socket_(std::move(socket)),
      port_id_(mnl_socket_get_portid(socket_.get())),
      receive_buffer_(kNetlinkReceiveBufferBytes) {}

absl::StatusOr<GenlSocket> GenlSocket::Open() {
  absl::StatusOr<NetlinkSocket> socket = OpenNetlinkSocket(NETLINK_GENERIC, "generic netlink");
  if (!socket.ok()) return socket.status();
  return GenlSocket(*std::move(socket));
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
  char request[kGenlRequestBytes];
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

  if (mnl_socket_sendto(socket_.get(), message, message->nlmsg_len) < 0) {
    return ErrnoStatus(absl::StrCat(what, ": send"), errno);
  }

  return ReceiveReplies(socket_.get(), port_id_, sequence, family_id, receive_buffer_, what,
                        on_reply);
}

}  // namespace nictune::driver::netlink
