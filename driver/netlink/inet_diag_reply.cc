// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/inet_diag_reply.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"

namespace nictune::driver::netlink {
namespace {

// The SK_MEMINFO_* entry at `index`, or 0 when an older kernel's array is shorter.
uint32_t MemInfo(const nlattr* meminfo, int index) {
  if (meminfo == nullptr) return 0;
  const size_t needed = (static_cast<size_t>(index) + 1) * sizeof(uint32_t);
  if (mnl_attr_get_payload_len(meminfo) < needed) return 0;
  uint32_t value = 0;
  std::memcpy(&value,
              static_cast<const char*>(mnl_attr_get_payload(meminfo)) +
                  static_cast<size_t>(index) * sizeof(uint32_t),
              sizeof value);
  return value;
}

}  // namespace

absl::StatusOr<SocketMemory> ParseInetDiagReply(const nlmsghdr& reply, uint32_t netns_inode) {
  if (reply.nlmsg_len < NLMSG_HDRLEN ||
      mnl_nlmsg_get_payload_len(&reply) < sizeof(inet_diag_msg)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sock_diag reply of ", reply.nlmsg_len, " bytes: shorter than its header (",
                     NLMSG_HDRLEN + sizeof(inet_diag_msg), " bytes)"));
  }
  inet_diag_msg message{};
  std::memcpy(&message, mnl_nlmsg_get_payload(&reply), sizeof message);
  AttributeReader attributes =
      AttributeReader::FromMessage(reply, sizeof(inet_diag_msg), "sock_diag reply");
  const nlattr* meminfo = attributes.Get(INET_DIAG_SKMEMINFO);
  if (!attributes.status().ok()) return attributes.status();
  return SocketMemory{
      // sock_diag_save_cookie: the low 32 bits first.
      .cookie = (uint64_t{message.id.idiag_cookie[1]} << 32) | message.id.idiag_cookie[0],
      .family = message.idiag_family,
      .protocol = IPPROTO_UDP,
      .local_port = ntohs(message.id.idiag_sport),
      .netns_inode = netns_inode,
      .inode = message.idiag_inode,
      .rmem_alloc = MemInfo(meminfo, SK_MEMINFO_RMEM_ALLOC),
      .rcvbuf = MemInfo(meminfo, SK_MEMINFO_RCVBUF),
      .drops = MemInfo(meminfo, SK_MEMINFO_DROPS),
  };
}

}  // namespace nictune::driver::netlink
