// SPDX-License-Identifier: Apache-2.0
// Where the snapshot's device statistics come from: one rtnetlink dump when the collector has
// it, the sysfs files of the devices the dump lacks or when the dump fails, and the source says
// which, so that a failing dump is seen, not hidden behind the files.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/model/source.h"
#include "driver/link_statistics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/synthetic_host.h"

namespace nictune::collect {
namespace {

using ::testing::HasSubstr;

class FakeLinkStatistics final : public driver::LinkStatisticsSource {
 public:
  absl::StatusOr<std::vector<driver::LinkStatistics>> Read() override {
    ++reads;
    return reply;
  }
  absl::StatusOr<std::string> DeviceName(int32_t ifindex) override {
    ++name_lookups;
    const auto found = names.find(ifindex);
    if (found == names.end()) return absl::NotFoundError(absl::StrCat("no ifindex ", ifindex));
    return found->second;
  }
  absl::StatusOr<std::vector<driver::LinkStatistics>> reply;
  std::map<int32_t, std::string> names = {{2, "syn0"}};
  int reads = 0;
  int name_lookups = 0;
};

// rx_packets is the first counter of struct rtnl_link_stats64.
driver::LinkStatistics Link(int32_t ifindex, uint64_t rx_packets) {
  driver::LinkStatistics link{.ifindex = ifindex};
  link.counters[0] = rx_packets;
  return link;
}

class LinkStatisticsCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing_support::SyntheticHost> created =
        testing_support::SyntheticHost::Create({.device = "syn0", .ifindex = 2});
    ASSERT_TRUE(created.ok()) << created.status();
    host_ = std::make_unique<testing_support::SyntheticHost>(*std::move(created));
    collector_ = std::make_unique<SnapshotCollector>(
        CollectorPaths{.proc = host_->proc_root(), .sys = host_->sys_root()}, nullptr,
        "unit test: no probes", nullptr, &links_);
  }

  model::Snapshot Collect() { return collector_->Collect(); }

  const model::SourceState* RtnetlinkState(const model::Snapshot& s) {
    for (const model::SourceState& state : s.sources) {
      if (state.source == model::Source::kRtnetlink) return &state;
    }
    return nullptr;
  }

  // The synthetic device's rx_packets file says this.
  uint64_t FileRxPackets() {
    SnapshotCollector files({.proc = host_->proc_root(), .sys = host_->sys_root()}, nullptr, "");
    const model::Snapshot s = files.Collect();
    EXPECT_TRUE(s.devices.has_value());
    return s.devices->at(0).statistics.at("rx_packets");
  }

  // The snapshot's statistics are the files', and the rtnetlink source says why.
  void ExpectReadFromFiles(const model::Snapshot& s, const std::string& why) {
    ASSERT_TRUE(s.devices.has_value());
    EXPECT_EQ(s.devices->at(0).statistics.at("rx_packets"), FileRxPackets());
    EXPECT_EQ(s.devices->at(0).statistics.size(), driver::kLinkStatisticCount);
    const model::SourceState* state = RtnetlinkState(s);
    ASSERT_NE(state, nullptr);
    EXPECT_FALSE(state->in_use);
    EXPECT_THAT(state->detail, HasSubstr(why));
  }

  std::unique_ptr<testing_support::SyntheticHost> host_;
  FakeLinkStatistics links_;
  std::unique_ptr<SnapshotCollector> collector_;
};

TEST_F(LinkStatisticsCollectorTest, TheDumpsCountersReplaceTheFiles) {
  ASSERT_TRUE(host_->Advance().ok());
  ASSERT_NE(FileRxPackets(), 123456u);
  links_.reply = std::vector<driver::LinkStatistics>{Link(2, 123456), Link(9, 1)};
  const model::Snapshot s = Collect();
  EXPECT_EQ(links_.reads, 1);
  ASSERT_TRUE(s.devices.has_value());
  ASSERT_EQ(s.devices->size(), 1u);
  EXPECT_EQ(s.devices->at(0).statistics.at("rx_packets"), 123456u);
  EXPECT_EQ(s.devices->at(0).statistics.size(), driver::kLinkStatisticCount);
  const model::SourceState* state = RtnetlinkState(s);
  ASSERT_NE(state, nullptr);
  EXPECT_TRUE(state->in_use) << state->detail;
  // Each device's name is checked against the dump's namespace once, not every interval.
  Collect();
  EXPECT_EQ(links_.reads, 2);
  EXPECT_EQ(links_.name_lookups, 1);
}

// The host's /sys in a container with a network namespace of its own: ifindex 2 is another
// device there, and its counters must not be taken for syn0's.
TEST_F(LinkStatisticsCollectorTest, SysfsOfAnotherNamespaceIsReadFromItsFiles) {
  ASSERT_TRUE(host_->Advance().ok());
  links_.reply = std::vector<driver::LinkStatistics>{Link(2, 123456)};
  links_.names = {{2, "eth0"}};
  ExpectReadFromFiles(Collect(),
                      "ifindex 2 is syn0 in sysfs and eth0 in the agent's "
                      "namespace: sysfs lists another network namespace's");
}

TEST_F(LinkStatisticsCollectorTest, AFailedDumpFallsBackToTheFilesAndSaysWhy) {
  ASSERT_TRUE(host_->Advance().ok());
  links_.reply = absl::UnavailableError("rtnetlink RTM_GETSTATS: receive: timed out");
  ExpectReadFromFiles(Collect(), "timed out; statistics read from sysfs");
}

TEST_F(LinkStatisticsCollectorTest, ADeviceTheDumpLacksIsReadFromItsFiles) {
  ASSERT_TRUE(host_->Advance().ok());
  links_.reply = std::vector<driver::LinkStatistics>{Link(9, 1)};
  ExpectReadFromFiles(Collect(), "not in the dump: syn0");
}

}  // namespace
}  // namespace nictune::collect
