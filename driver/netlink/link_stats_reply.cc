// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/link_stats_reply.h"

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"

namespace nictune::driver::netlink {

absl::StatusOr<LinkStatistics> ParseLinkStatsReply(const nlmsghdr& reply) {
  if (reply.nlmsg_len < NLMSG_HDRLEN || mnl_nlmsg_get_payload_len(&reply) < sizeof(if_stats_msg)) {
    return absl::InvalidArgumentError(absl::StrCat("RTM_GETSTATS reply of ", reply.nlmsg_len,
                                                   " bytes: shorter than its header (",
                                                   NLMSG_HDRLEN + sizeof(if_stats_msg), " bytes)"));
  }
  if_stats_msg header{};
  std::memcpy(&header, mnl_nlmsg_get_payload(&reply), sizeof header);
  const std::string context = absl::StrCat("RTM_GETSTATS reply for ifindex ", header.ifindex);
  AttributeReader attributes = AttributeReader::FromMessage(reply, sizeof(if_stats_msg), context);
  const nlattr* stats = attributes.Get(IFLA_STATS_LINK_64);
  if (!attributes.status().ok()) return attributes.status();
  if (stats == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": no IFLA_STATS_LINK_64"));
  }
  LinkStatistics out{.ifindex = static_cast<int32_t>(header.ifindex)};
  const size_t needed = sizeof(uint64_t) * kLinkStatisticCount;
  if (mnl_attr_get_payload_len(stats) < needed) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": IFLA_STATS_LINK_64 of ",
                                                   mnl_attr_get_payload_len(stats),
                                                   " bytes, fewer than ", needed));
  }
  std::memcpy(out.counters.data(), mnl_attr_get_payload(stats), needed);
  return out;
}

}  // namespace nictune::driver::netlink
