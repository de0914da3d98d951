// SPDX-License-Identifier: Apache-2.0
// ReadHostKnobs, ReadDeferState and ReadNapiThreaded over proc and sys trees laid out like the
// kernel's, with the values written the way the kernel prints them (one integer and a newline).
#include <filesystem>
#include <fstream>
#include <string>

#include "agent/observe/defer_reader.h"
#include "agent/observe/host_knobs_reader.h"
#include "agent/observe/isolated_cpus.h"
#include "agent/observe/threaded_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::observe {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FakeRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        ("observe_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const fs::path& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  std::string Root() const { return root_.native(); }

  fs::path root_;
};

using HostKnobsTest = FakeRoot;

TEST_F(HostKnobsTest, ReadsEveryKnob) {
  Write("sys/net/core/netdev_budget", "600\n");
  Write("sys/net/core/netdev_budget_usecs", "8000\n");
  Write("sys/net/core/dev_weight", "64\n");
  Write("sys/net/core/dev_weight_rx_bias", "2\n");
  Write("sys/net/core/dev_weight_tx_bias", "1\n");
  Write("sys/net/core/rmem_default", "425984\n");
  Write("sys/net/core/rmem_max", "8388608\n");
  Write("sys/net/ipv4/udp_rmem_min", "8192\n");
  absl::StatusOr<HostKnobsReading> r = ReadHostKnobs(Root());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->missing.empty());
  EXPECT_EQ(r->knobs.netdev_budget, 600);
  EXPECT_EQ(r->knobs.netdev_budget_usecs, 8000);
  EXPECT_EQ(r->knobs.dev_weight, 64);
  EXPECT_EQ(r->knobs.dev_weight_rx_bias, 2);
  EXPECT_EQ(r->knobs.dev_weight_tx_bias, 1);
  EXPECT_EQ(r->knobs.rmem_default, 425984);
  EXPECT_EQ(r->knobs.rmem_max, 8388608);
  EXPECT_EQ(r->knobs.udp_rmem_min, 8192);
}

TEST_F(HostKnobsTest, MissingFilesKeepTheKernelDefaultAndAreListed) {
  // A container that shows net.core but hides net.ipv4 and the bias knobs.
  Write("sys/net/core/netdev_budget", "450\n");
  Write("sys/net/core/netdev_budget_usecs", "4000\n");
  Write("sys/net/core/dev_weight", "32\n");
  Write("sys/net/core/rmem_default", "212992\n");
  Write("sys/net/core/rmem_max", "212992\n");
  absl::StatusOr<HostKnobsReading> r = ReadHostKnobs(Root());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->knobs.netdev_budget, 450);
  EXPECT_EQ(r->knobs.dev_weight, 32);
  const tuner::HostKnobs defaults;
  EXPECT_EQ(r->knobs.dev_weight_rx_bias, defaults.dev_weight_rx_bias);
  EXPECT_EQ(r->knobs.udp_rmem_min, defaults.udp_rmem_min);
  EXPECT_THAT(r->missing, ElementsAre(Root() + "/sys/net/core/dev_weight_rx_bias",
                                      Root() + "/sys/net/core/dev_weight_tx_bias",
                                      Root() + "/sys/net/ipv4/udp_rmem_min"));
}

TEST_F(HostKnobsTest, GarbageIsAnErrorNamingTheFile) {
  Write("sys/net/core/netdev_budget", "300 600\n");
  absl::StatusOr<HostKnobsReading> r = ReadHostKnobs(Root());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr(Root() + "/sys/net/core/netdev_budget"));
  EXPECT_THAT(r.status().message(), HasSubstr("expected one decimal integer, got '300 600\\n'"));
}

TEST_F(HostKnobsTest, AFileThatIsNotOneIsAnErrorNamingIt) {
  // A directory where the file should be: refused before any read.
  fs::create_directories(root_ / "sys/net/core/netdev_budget");
  absl::StatusOr<HostKnobsReading> r = ReadHostKnobs(Root());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("netdev_budget"));
  EXPECT_THAT(r.status().message(), HasSubstr("not a regular file"));
}

TEST(HostKnobsRealHostTest, ThisHostsKnobsAreInTheKernelsRange) {
  absl::StatusOr<HostKnobsReading> r = ReadHostKnobs("/proc");
  ASSERT_TRUE(r.ok()) << r.status();
  std::ifstream file("/proc/sys/net/core/rmem_default");
  int64_t rmem_default = 0;
  ASSERT_TRUE(file >> rmem_default);
  EXPECT_EQ(r->knobs.rmem_default, rmem_default);
  EXPECT_GT(r->knobs.netdev_budget, 0);
}

using DeferTest = FakeRoot;

TEST_F(DeferTest, ReadsBothFiles) {
  Write("sys/class/net/eth0/ifindex", "2\n");
  Write("sys/class/net/eth0/napi_defer_hard_irqs", "2\n");
  Write("sys/class/net/eth0/gro_flush_timeout", "200000\n");
  absl::StatusOr<tuner::DeferState> d = ReadDeferState(Root() + "/sys", "eth0");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->supported);
  EXPECT_EQ(d->napi_defer_hard_irqs, 2u);
  EXPECT_EQ(d->gro_flush_timeout_ns, 200000u);
}

TEST_F(DeferTest, KernelWithoutNapiDeferHardIrqsIsUnsupported) {
  // Before 5.10 only gro_flush_timeout exists.
  Write("sys/class/net/eth0/ifindex", "2\n");
  Write("sys/class/net/eth0/gro_flush_timeout", "0\n");
  absl::StatusOr<tuner::DeferState> d = ReadDeferState(Root() + "/sys", "eth0");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->supported);
}

TEST_F(DeferTest, MissingDeviceAndBadValuesAreErrorsAndDoNotHideOtherDevices) {
  Write("sys/class/net/eth0/ifindex", "2\n");
  Write("sys/class/net/eth0/napi_defer_hard_irqs", "-1\n");
  Write("sys/class/net/eth0/gro_flush_timeout", "0\n");
  Write("sys/class/net/eth1/ifindex", "3\n");
  Write("sys/class/net/eth1/napi_defer_hard_irqs", "0\n");
  Write("sys/class/net/eth1/gro_flush_timeout", "0\n");
  const DeferReading r = ReadDeferStates(Root() + "/sys", {"eth0", "eth1", "eth9"});
  ASSERT_EQ(r.states.size(), 1u);
  EXPECT_TRUE(r.states.at("eth1").supported);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_THAT(r.errors[0], HasSubstr("eth0/napi_defer_hard_irqs: -1 is outside 0..4294967295"));
  EXPECT_THAT(r.errors[1], HasSubstr("eth9 does not exist"));
}

TEST(DeferRealHostTest, LoopbackReadsAsTheKernelPrintsIt) {
  absl::StatusOr<tuner::DeferState> d = ReadDeferState("/sys", "lo");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->supported, fs::exists("/sys/class/net/lo/napi_defer_hard_irqs"));
}

using ThreadedTest = FakeRoot;

TEST_F(ThreadedTest, ReadsEachModeAndLeavesOutAKernelWithoutTheFile) {
  Write("sys/class/net/eth0/ifindex", "2\n");
  Write("sys/class/net/eth0/threaded", "1\n");
  Write("sys/class/net/eth1/ifindex", "3\n");
  Write("sys/class/net/eth1/threaded", "2\n");  // busy-polling threads (6.17 on)
  Write("sys/class/net/eth2/ifindex", "4\n");   // before 5.12: no file
  const ThreadedReading r = ReadNapiThreadedModes(Root() + "/sys", {"eth0", "eth1", "eth2"});
  EXPECT_THAT(r.errors, ElementsAre());
  ASSERT_EQ(r.modes.size(), 2u);
  EXPECT_EQ(r.modes.at("eth0"), 1u);
  EXPECT_EQ(r.modes.at("eth1"), 2u);
}

TEST_F(ThreadedTest, MissingDeviceAndBadValuesAreErrorsAndDoNotHideOtherDevices) {
  Write("sys/class/net/eth0/ifindex", "2\n");
  Write("sys/class/net/eth0/threaded", "7\n");
  Write("sys/class/net/eth1/ifindex", "3\n");
  Write("sys/class/net/eth1/threaded", "0\n");
  Write("sys/class/net/eth2/ifindex", "4\n");
  Write("sys/class/net/eth2/threaded", "on\n");
  const ThreadedReading r =
      ReadNapiThreadedModes(Root() + "/sys", {"eth0", "eth1", "eth2", "eth9"});
  ASSERT_EQ(r.modes.size(), 1u);
  EXPECT_EQ(r.modes.at("eth1"), 0u);
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_THAT(r.errors[0], HasSubstr("eth0/threaded: 7 is outside 0..2"));
  EXPECT_THAT(r.errors[1], HasSubstr("eth2/threaded"));
  EXPECT_THAT(r.errors[2], HasSubstr("eth9 does not exist"));
}

using IsolatedCpusTest = FakeRoot;

TEST_F(IsolatedCpusTest, ReadsTheListAndTakesBlankOrMissingAsNone) {
  absl::StatusOr<std::vector<int>> none = ReadIsolatedCpus(Root() + "/sys");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(*none, ElementsAre());
  Write("sys/devices/system/cpu/isolated", "\n");  // as the kernel prints no isolated CPU
  absl::StatusOr<std::vector<int>> blank = ReadIsolatedCpus(Root() + "/sys");
  ASSERT_TRUE(blank.ok()) << blank.status();
  EXPECT_THAT(*blank, ElementsAre());
  Write("sys/devices/system/cpu/isolated", "2-3,6\n");
  absl::StatusOr<std::vector<int>> some = ReadIsolatedCpus(Root() + "/sys");
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_THAT(*some, ElementsAre(2, 3, 6));
  Write("sys/devices/system/cpu/isolated", "two\n");
  absl::StatusOr<std::vector<int>> bad = ReadIsolatedCpus(Root() + "/sys");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("devices/system/cpu/isolated"));
}

TEST(ThreadedRealHostTest, LoopbackReadsAsTheKernelPrintsIt) {
  absl::StatusOr<std::optional<uint32_t>> mode = ReadNapiThreaded("/sys", "lo");
  ASSERT_TRUE(mode.ok()) << mode.status();
  EXPECT_EQ(mode->has_value(), fs::exists("/sys/class/net/lo/threaded"));
}

}  // namespace
}  // namespace nictune::observe
