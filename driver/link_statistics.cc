// SPDX-License-Identifier: Apache-2.0
#include "driver/link_statistics.h"

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/link_stats_reply.h"
#include "driver/netlink/netlink_error.h"
#include "driver/netlink/netlink_replies.h"

namespace nictune::driver {
namespace {

constexpr const char* kRequest = "rtnetlink RTM_GETSTATS IFLA_STATS_LINK_64";
constexpr size_t kRequestBufferBytes = 128;

class RtnetlinkLinkStatistics final : public LinkStatisticsSource {
 public:
  explicit RtnetlinkLinkStatistics(netlink::NetlinkSocket socket)
      : socket_(std::move(socket)),
        port_id_(mnl_socket_get_portid(socket_.get())),
        receive_buffer_(netlink::kNetlinkReceiveBufferBytes) {}

  absl::StatusOr<std::vector<LinkStatistics>> Read() override {
    char request[kRequestBufferBytes];
    nlmsghdr* message = mnl_nlmsg_put_header(request);
    message->nlmsg_type = RTM_GETSTATS;
    message->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    const uint32_t sequence = next_sequence_++;
    message->nlmsg_seq = sequence;
    auto* header =
        static_cast<if_stats_msg*>(mnl_nlmsg_put_extra_header(message, sizeof(if_stats_msg)));
    header->family = AF_UNSPEC;
    header->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
    if (mnl_socket_sendto(socket_.get(), message, message->nlmsg_len) < 0) {
      return netlink::ErrnoStatus(std::string(kRequest) + ": send", errno);
    }
    std::vector<LinkStatistics> links;
    absl::Status received = netlink::ReceiveReplies(
        socket_.get(), port_id_, sequence, RTM_NEWSTATS, receive_buffer_, kRequest,
        [&](const nlmsghdr& reply) -> absl::Status {
          absl::StatusOr<LinkStatistics> link = netlink::ParseLinkStatsReply(reply);
          if (!link.ok()) return link.status();
          links.push_back(*link);
          return absl::OkStatus();
        });
    if (!received.ok()) return received;
    return links;
  }

  absl::StatusOr<std::string> DeviceName(int32_t ifindex) override {
    char name[IF_NAMESIZE] = {};
    if (if_indextoname(static_cast<unsigned int>(ifindex), name) == nullptr) {
      return netlink::ErrnoStatus(absl::StrCat("if_indextoname ", ifindex), errno);
    }
    return std::string(name);
  }

 private:
  netlink::NetlinkSocket socket_;
  uint32_t port_id_ = 0;
  uint32_t next_sequence_ = 1;
  std::vector<char> receive_buffer_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LinkStatisticsSource>> OpenRtnetlinkLinkStatistics() {
  absl::StatusOr<netlink::NetlinkSocket> socket =
      netlink::OpenNetlinkSocket(NETLINK_ROUTE, "rtnetlink");
  if (!socket.ok()) return socket.status();
  return std::unique_ptr<LinkStatisticsSource>(
      std::make_unique<RtnetlinkLinkStatistics>(*std::move(socket)));
}

}  // namespace nictune::driver
