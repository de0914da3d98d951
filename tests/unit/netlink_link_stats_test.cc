// SPDX-License-Identifier: Apache-2.0
// Device statistics over rtnetlink against the running kernel: every device /sys/class/net lists
// is in one RTM_GETSTATS dump, each counter between the sysfs file read before the dump and the
// one read after; and malformed replies are errors that say what was short or missing.
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <array>
#include <cstring>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/net_devices.h"
#include "driver/link_statistics.h"
#include "driver/netlink/link_stats_reply.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver {
namespace {

using ::testing::HasSubstr;

std::map<int32_t, procfs::NetDevice> SysfsDevices() {
  std::map<int32_t, procfs::NetDevice> out;
  absl::StatusOr<std::vector<procfs::NetDevice>> devices = procfs::ReadNetDevices("/sys/class/net");
  EXPECT_TRUE(devices.ok()) << devices.status();
  if (devices.ok()) {
    for (procfs::NetDevice& device : *devices) out.emplace(device.ifindex, std::move(device));
  }
  return out;
}

TEST(LinkStatisticsTest, OneDumpHasEveryDeviceWithTheCountersItsSysfsFilesShow) {
  absl::StatusOr<std::unique_ptr<LinkStatisticsSource>> source = OpenRtnetlinkLinkStatistics();
  ASSERT_TRUE(source.ok()) << source.status();
  const std::map<int32_t, procfs::NetDevice> before = SysfsDevices();
  absl::StatusOr<std::vector<LinkStatistics>> links = (*source)->Read();
  ASSERT_TRUE(links.ok()) << links.status();
  const std::map<int32_t, procfs::NetDevice> after = SysfsDevices();
  ASSERT_FALSE(before.empty());

  std::map<int32_t, const LinkStatistics*> dumped;
  for (const LinkStatistics& link : *links) dumped[link.ifindex] = &link;
  for (const auto& [ifindex, device] : before) {
    if (!after.contains(ifindex)) continue;  // gone meanwhile
    SCOPED_TRACE(device.name);
    ASSERT_TRUE(dumped.contains(ifindex)) << "not in the dump";
    for (size_t i = 0; i < kLinkStatisticCount; ++i) {
      const std::string name(kLinkStatisticNames[i]);
      ASSERT_TRUE(device.statistics.contains(name)) << name << ": no sysfs file";
      EXPECT_GE(dumped[ifindex]->counters[i], device.statistics.at(name)) << name;
      EXPECT_LE(dumped[ifindex]->counters[i], after.at(ifindex).statistics.at(name)) << name;
    }
  }
  // The loopback device exists in every namespace, and with ifindex 1.
  ASSERT_TRUE(dumped.contains(1));
  // A second read on the same socket works (the sequence moves on).
  absl::StatusOr<std::vector<LinkStatistics>> again = (*source)->Read();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->size(), links->size());

  // Names in the same namespace: each listed device's, and none for an ifindex without one.
  for (const auto& [ifindex, device] : before) {
    if (!after.contains(ifindex)) continue;
    absl::StatusOr<std::string> name = (*source)->DeviceName(ifindex);
    ASSERT_TRUE(name.ok()) << name.status();
    EXPECT_EQ(*name, device.name);
  }
  absl::StatusOr<std::string> none = (*source)->DeviceName(0x7ffffff0);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound) << none.status();
}

// A reply built as the kernel builds one: if_stats_msg, then attributes.
struct Reply {
  std::array<char, 1024> buffer{};
  nlmsghdr* message = nullptr;
  Reply(int32_t ifindex) {
    message = mnl_nlmsg_put_header(buffer.data());
    message->nlmsg_type = RTM_NEWSTATS;
    auto* header =
        static_cast<if_stats_msg*>(mnl_nlmsg_put_extra_header(message, sizeof(if_stats_msg)));
    header->ifindex = static_cast<uint32_t>(ifindex);
    header->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
  }
};

TEST(LinkStatsReplyTest, CountersAreReadInTheKernelsOrder) {
  Reply reply(7);
  rtnl_link_stats64 stats{};
  stats.rx_packets = 11;
  stats.tx_bytes = 22;
  stats.rx_nohandler = 33;
  mnl_attr_put(reply.message, IFLA_STATS_LINK_64, sizeof stats, &stats);
  absl::StatusOr<LinkStatistics> parsed = netlink::ParseLinkStatsReply(*reply.message);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->ifindex, 7);
  std::map<std::string, uint64_t> by_name;
  for (size_t i = 0; i < kLinkStatisticCount; ++i) {
    by_name[std::string(kLinkStatisticNames[i])] = parsed->counters[i];
  }
  EXPECT_EQ(by_name.at("rx_packets"), 11u);
  EXPECT_EQ(by_name.at("tx_bytes"), 22u);
  EXPECT_EQ(by_name.at("rx_nohandler"), 33u);
  EXPECT_EQ(by_name.at("tx_packets"), 0u);
}

TEST(LinkStatsReplyTest, AShortOrIncompleteReplyIsAnErrorThatSaysWhat) {
  Reply no_attribute(3);
  absl::StatusOr<LinkStatistics> missing = netlink::ParseLinkStatsReply(*no_attribute.message);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("ifindex 3: no IFLA_STATS_LINK_64"));

  Reply short_attribute(4);
  const std::array<uint64_t, 4> four{1, 2, 3, 4};
  mnl_attr_put(short_attribute.message, IFLA_STATS_LINK_64, sizeof four, four.data());
  absl::StatusOr<LinkStatistics> short_stats =
      netlink::ParseLinkStatsReply(*short_attribute.message);
  EXPECT_EQ(short_stats.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_stats.status().message(), HasSubstr("IFLA_STATS_LINK_64 of 32 bytes"));

  Reply header_only(5);
  header_only.message->nlmsg_len = NLMSG_HDRLEN + 4;
  absl::StatusOr<LinkStatistics> truncated = netlink::ParseLinkStatsReply(*header_only.message);
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(truncated.status().message(), HasSubstr("shorter than its header"));
}

}  // namespace
}  // namespace nictune::driver
