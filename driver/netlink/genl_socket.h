// SPDX-License-Identifier: Apache-2.0
// A small generic-netlink client on libmnl: resolve a family, send a request, walk the
// (multi-part) replies, and turn NLMSG_ERROR / extended acks into absl::Status.
//
// A netlink socket belongs to the network namespace of the thread that opened it; open it in
// the namespace you mean to look at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "driver/netlink/netlink_replies.h"
#include "absl/strings/str_cat.h"
#include "driver/netlink/netlink_error.h"

struct mnl_socket;
struct nlmsghdr;

namespace nictune::driver::netlink {

struct GenlFamily {
  std::string name;
  uint16_t id = 0;
  uint32_t version = 0;
  std::vector<uint32_t> commands;  // command ids the running kernel accepts (CTRL_ATTR_OPS)
};

bool FamilyHasCommand(const GenlFamily& family, uint32_t command);

class GenlSocket {
 public:
  // Adds the request's attributes to the message after the genetlink header.
  using AttributeWriter = absl::FunctionRef<void(nlmsghdr&)>;
  // Called for each reply message of the family; an error is kept (the first one wins) and the
  // remaining replies are still read so that the socket stays in step.
  using ReplyHandler = absl::FunctionRef<absl::Status(const nlmsghdr&)>;

  // Opens and binds a NETLINK_GENERIC socket with extended acks, in the calling thread's
  // network namespace.
  static absl::StatusOr<GenlSocket> Open();

  GenlSocket(GenlSocket&& other) noexcept = default;
  GenlSocket& operator=(GenlSocket&& other) noexcept = default;
  GenlSocket(const GenlSocket&) = delete;
  GenlSocket& operator=(const GenlSocket&) = delete;
  ~GenlSocket() = default;

  // CTRL_CMD_GETFAMILY. A family the kernel does not have is NotFound.
  absl::StatusOr<GenlFamily> ResolveFamily(std::string_view name);

  // Sends one request and reads replies until the kernel acks (do) or ends the dump (dump).
  // Kernel errors become statuses from ErrnoStatus(DescribeRequest(context), errno, extack).
  absl::Status Request(const RequestContext& context, uint16_t family_id, uint8_t command,
                       uint8_t version, bool dump, AttributeWriter write_attributes,
                       ReplyHandler on_reply);

  // A do request answered by one reply, which `parse` turns into a T. DataLoss when the kernel
  // acks without a reply.
  // (Write and Parse are template parameters so that nlmsghdr need only be complete where this
  // is called.)
  template <typename T, typename Write, typename Parse>
  absl::StatusOr<T> RequestOne(const RequestContext& context, uint16_t family_id, uint8_t command,
                               uint8_t version, const Write& write_attributes, const Parse& parse) {
    std::optional<T> reply;
    absl::Status status = Request(context, family_id, command, version, /*dump=*/false,
                                  write_attributes, [&](const nlmsghdr& message) -> absl::Status {
                                    absl::StatusOr<T> parsed = parse(message);
                                    if (!parsed.ok()) return parsed.status();
                                    reply = *std::move(parsed);
                                    return absl::OkStatus();
                                  });
    if (!status.ok()) return status;
    if (!reply) {
      return absl::DataLossError(
          absl::StrCat(DescribeRequest(context), ": kernel acked without a reply"));
    }
    return *std::move(reply);
  }

 private:
  explicit GenlSocket(NetlinkSocket socket);

  NetlinkSocket socket_;
  uint32_t port_id_ = 0;
  uint32_t next_sequence_ = 1;
  std::vector<char> receive_buffer_;
};

}  // namespace nictune::driver::netlink
