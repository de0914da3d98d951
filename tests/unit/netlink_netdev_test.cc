// SPDX-License-Identifier: Apache-2.0
// netdev netlink napi-get / queue-get on the running kernel: eth0's NAPIs are listed and tied to
// its queues, and any irq the kernel links to a NAPI is the one named after that queue in
// /proc/interrupts ("virtioN-input.0" for rx 0, "virtioN-output.0" for tx 0).
#include <net/if.h>

#include <filesystem>
#include <map>
#include <set>

#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "driver/netlink/netdev_netlink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::netlink {
namespace {

using ::testing::Each;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kRealNic[] = "eth0";

std::map<uint32_t, std::string> IrqNames() {
  absl::StatusOr<std::string> text = procfs::ReadFile("/proc/interrupts");
  EXPECT_TRUE(text.ok()) << text.status();
  absl::StatusOr<procfs::InterruptTable> table = procfs::ParseInterrupts(text.value_or(""));
  EXPECT_TRUE(table.ok()) << table.status();
  std::map<uint32_t, std::string> names;
  if (!table.ok()) return names;
  for (const procfs::InterruptLine& line : table->lines) {
    if (line.irq) names[*line.irq] = line.actions;
  }
  return names;
}

class NetdevNetlinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<NetdevTopology>> opened = OpenNetdevNetlink();
    ASSERT_TRUE(opened.ok()) << opened.status();
    topology_ = *std::move(opened);
  }
  std::unique_ptr<NetdevTopology> topology_;
};

TEST_F(NetdevNetlinkTest, RealNicNapisServeItsQueuesAndAnyIrqMatchesTheQueueName) {
  const std::filesystem::path device_link = std::string("/sys/class/net/") + kRealNic + "/device";
  if (!std::filesystem::exists(device_link)) GTEST_SKIP() << "no " << kRealNic << " here";
  const std::string virtio = std::filesystem::read_symlink(device_link).filename().native();
  if (virtio.rfind("virtio", 0) != 0) GTEST_SKIP() << kRealNic << " is not virtio_net here";
  const auto ifindex = static_cast<int32_t>(if_nametoindex(kRealNic));
  ASSERT_GT(ifindex, 0);

  absl::StatusOr<std::vector<NapiInfo>> napis = topology_->ListNapis(ifindex);
  ASSERT_TRUE(napis.ok()) << napis.status();
  ASSERT_THAT(*napis, Not(IsEmpty()));
  EXPECT_THAT(*napis, Each(Field(&NapiInfo::ifindex, ifindex)));

  absl::StatusOr<std::vector<NetdevQueue>> queues = topology_->ListQueues(ifindex);
  ASSERT_TRUE(queues.ok()) << queues.status();
  ASSERT_THAT(*queues, Not(IsEmpty()));

  std::map<uint32_t, const NapiInfo*> by_id;
  for (const NapiInfo& napi : *napis) by_id[napi.id] = &napi;
  const std::map<uint32_t, std::string> irq_names = IrqNames();
  bool rx0_has_napi = false;
  for (const NetdevQueue& queue : *queues) {
    EXPECT_EQ(queue.ifindex, ifindex);
    if (!queue.napi_id) continue;  // virtio_net's tx queues have none when tx NAPI is off
    if (queue.type == NetdevQueueType::kRx && queue.id == 0) rx0_has_napi = true;
    auto napi = by_id.find(*queue.napi_id);
    ASSERT_NE(napi, by_id.end()) << "queue " << queue.id << " napi " << *queue.napi_id;
    // virtio_net on 6.18 does not link its NAPIs to irqs (no netif_napi_set_irq); where a
    // driver does, the irq must be the one named after this queue.
    if (!napi->second->irq) continue;
    const std::string expected = virtio +
                                 (queue.type == NetdevQueueType::kRx ? "-input." : "-output.") +
                                 std::to_string(queue.id);
    auto name = irq_names.find(*napi->second->irq);
    ASSERT_NE(name, irq_names.end()) << "irq " << *napi->second->irq;
    EXPECT_EQ(name->second, expected) << "irq " << name->first;
  }
  EXPECT_TRUE(rx0_has_napi);
  // Every NAPI of eth0 serves at least one of its queues.
  for (const NapiInfo& napi : *napis) {
    bool serves = false;
    for (const NetdevQueue& queue : *queues) serves = serves || queue.napi_id == napi.id;
    EXPECT_TRUE(serves) << "napi " << napi.id;
  }
}

TEST_F(NetdevNetlinkTest, DumpOfEverythingIncludesEachDevicesOwnDump) {
  absl::StatusOr<std::vector<NapiInfo>> all = topology_->ListNapis(std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status();
  std::set<int32_t> ifindexes;
  for (const NapiInfo& napi : *all) ifindexes.insert(napi.ifindex);
  for (int32_t ifindex : ifindexes) {
    absl::StatusOr<std::vector<NapiInfo>> one = topology_->ListNapis(ifindex);
    ASSERT_TRUE(one.ok()) << one.status();
    size_t expected = 0;
    for (const NapiInfo& napi : *all) expected += napi.ifindex == ifindex ? 1 : 0;
    EXPECT_EQ(one->size(), expected) << "ifindex " << ifindex;
  }
}

TEST_F(NetdevNetlinkTest, LoopbackQueuesHaveNoNapi) {
  absl::StatusOr<std::vector<NetdevQueue>> queues =
      topology_->ListQueues(static_cast<int32_t>(if_nametoindex("lo")));
  ASSERT_TRUE(queues.ok()) << queues.status();
  ASSERT_THAT(*queues, Not(IsEmpty()));
  for (const NetdevQueue& queue : *queues) EXPECT_FALSE(queue.napi_id.has_value());
}

TEST_F(NetdevNetlinkTest, UnknownIfindexIsAnErrorNamingIt) {
  absl::StatusOr<std::vector<NapiInfo>> napis = topology_->ListNapis(999999);
  ASSERT_FALSE(napis.ok());
  EXPECT_EQ(napis.status().code(), absl::StatusCode::kNotFound) << napis.status();
  EXPECT_THAT(std::string(napis.status().message()),
              ::testing::HasSubstr("netdev netlink napi-get ifindex 999999"));
}

}  // namespace
}  // namespace nictune::driver::netlink
