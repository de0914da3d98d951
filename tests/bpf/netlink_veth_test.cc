// SPDX-License-Identifier: Apache-2.0
// ethtool and netdev netlink on a veth pair in a namespace this test creates and deletes: veth
// has no interrupt coalescing (COALESCE_GET must say so cleanly), and it polls through NAPI only
// while GRO is on, so napi-get must list one NAPI per rx queue exactly then, none before or after,
// each with its poller's pid while the device is threaded.
#include <linux/ethtool.h>
#include <net/if.h>
#include <unistd.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "driver/netlink/ethtool_reader.h"
#include "driver/netlink/netdev_netlink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"

namespace nictune::driver::netlink {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_support::NetworkNamespace;

constexpr char kVeth[] = "nlveth0";
constexpr char kPeer[] = "nlveth1";
constexpr int kRxQueues = 2;

struct NetlinkView {
  absl::Status status;
  int32_t ifindex = 0;
  std::vector<NapiInfo> napis;
  std::vector<NetdevQueue> rx_queues;
};

// napi-get and queue-get for kVeth, asked from inside the namespace.
NetlinkView LookInside(const NetworkNamespace& netns) {
  NetlinkView view;
  absl::Status ran = netns.RunInside([&] {
    view.ifindex = static_cast<int32_t>(if_nametoindex(kVeth));
    absl::StatusOr<std::unique_ptr<NetdevTopology>> topology = OpenNetdevNetlink();
    if (!topology.ok()) {
      view.status = topology.status();
      return;
    }
    absl::StatusOr<std::vector<NapiInfo>> napis = (*topology)->ListNapis(view.ifindex);
    absl::StatusOr<std::vector<NetdevQueue>> queues = (*topology)->ListQueues(view.ifindex);
    if (!napis.ok() || !queues.ok()) {
      view.status = napis.ok() ? queues.status() : napis.status();
      return;
    }
    view.napis = *std::move(napis);
    for (const NetdevQueue& queue : *queues) {
      if (queue.type == NetdevQueueType::kRx) view.rx_queues.push_back(queue);
    }
  });
  if (!ran.ok()) view.status = ran;
  return view;
}

TEST(NetlinkVethTest, CoalesceIsUnsupportedAndNapisFollowGro) {
  if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> netns =
      NetworkNamespace::Create(absl::StrCat("nt-nl-", getpid()));
  ASSERT_TRUE(netns.ok()) << netns.status();
  ASSERT_TRUE((*netns)
                  ->Ip({"link", "add", kVeth, "numrxqueues", absl::StrCat(kRxQueues), "type",
                        "veth", "peer", "name", kPeer})
                  .ok());
  ASSERT_TRUE((*netns)->Ip({"link", "set", kVeth, "up"}).ok());
  ASSERT_TRUE((*netns)->Ip({"link", "set", kPeer, "up"}).ok());

  absl::Status coalesce;
  ASSERT_TRUE((*netns)->RunInside([&] { coalesce = ReadCoalesce(kVeth).status(); }).ok());
  EXPECT_EQ(coalesce.code(), absl::StatusCode::kUnimplemented) << coalesce;
  EXPECT_THAT(std::string(coalesce.message()), HasSubstr("not supported by veth"));
  EXPECT_THAT(std::string(coalesce.message()), HasSubstr(absl::StrCat("COALESCE_GET ", kVeth)));

  // GRO is off on a new veth: no NAPI, so its rx queues have none either.
  NetlinkView before = LookInside(**netns);
  ASSERT_TRUE(before.status.ok()) << before.status;
  ASSERT_GT(before.ifindex, 0);
  EXPECT_THAT(before.napis, IsEmpty());
  ASSERT_EQ(before.rx_queues.size(), static_cast<size_t>(kRxQueues));
  for (const NetdevQueue& queue : before.rx_queues) EXPECT_FALSE(queue.napi_id.has_value());

  // Test setup on the test's own device (not a product write): GRO on makes veth use NAPI.
  ASSERT_TRUE((*netns)->SetEthtoolFlag(kVeth, ETHTOOL_SGRO, true).ok());
  NetlinkView after = LookInside(**netns);
  ASSERT_TRUE(after.status.ok()) << after.status;
  ASSERT_EQ(after.napis.size(), static_cast<size_t>(kRxQueues));
  std::set<uint32_t> napi_ids;
  for (const NapiInfo& napi : after.napis) {
    EXPECT_EQ(napi.ifindex, after.ifindex);
    EXPECT_FALSE(napi.irq.has_value()) << "veth has no interrupt";
    napi_ids.insert(napi.id);
  }
  EXPECT_EQ(napi_ids.size(), static_cast<size_t>(kRxQueues));
  // One NAPI per rx queue. veth on 6.18 does not link its queues to them
  // (netif_queue_set_napi); where a kernel does, the link must name one of these NAPIs.
  ASSERT_EQ(after.rx_queues.size(), static_cast<size_t>(kRxQueues));
  for (const NetdevQueue& queue : after.rx_queues) {
    if (queue.napi_id) {
      EXPECT_EQ(napi_ids.count(*queue.napi_id), 1u) << "rx queue " << queue.id;
    }
  }

  // Threaded (test setup on the test's own device; `ip netns exec` mounts the namespace's
  // sysfs): each instance names its poller, a napi/... kernel thread, although no queue is linked
  // to it; the agent watches these by the instances alone (agent/collect/queue_map.h).
  const auto set_threaded = [&](int on) {
    return testing_support::RunChecked(
        {"ip", "netns", "exec", (*netns)->name(), "sh", "-c",
         absl::StrCat("echo ", on, " > /sys/class/net/", kVeth, "/threaded")});
  };
  ASSERT_TRUE(set_threaded(1).ok());
  NetlinkView threaded = LookInside(**netns);
  ASSERT_TRUE(threaded.status.ok()) << threaded.status;
  ASSERT_EQ(threaded.napis.size(), static_cast<size_t>(kRxQueues));
  for (const NapiInfo& napi : threaded.napis) {
    ASSERT_TRUE(napi.pid.has_value()) << "napi " << napi.id;
    absl::StatusOr<std::string> comm =
        procfs::ReadFile(absl::StrCat("/proc/", *napi.pid, "/comm"), 64);
    ASSERT_TRUE(comm.ok()) << comm.status();
    EXPECT_THAT(*comm, ::testing::StartsWith("napi/")) << "napi " << napi.id;
  }
  ASSERT_TRUE(set_threaded(0).ok());
  NetlinkView softirq_again = LookInside(**netns);
  ASSERT_TRUE(softirq_again.status.ok()) << softirq_again.status;
  for (const NapiInfo& napi : softirq_again.napis) EXPECT_FALSE(napi.pid.has_value());

  ASSERT_TRUE((*netns)->SetEthtoolFlag(kVeth, ETHTOOL_SGRO, false).ok());
  NetlinkView off_again = LookInside(**netns);
  ASSERT_TRUE(off_again.status.ok()) << off_again.status;
  EXPECT_THAT(off_again.napis, IsEmpty());
}

}  // namespace
}  // namespace nictune::driver::netlink
