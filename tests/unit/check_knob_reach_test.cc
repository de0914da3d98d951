// SPDX-License-Identifier: Apache-2.0
// `nictuned --check`'s look at the knobs on a fake /proc and /sys tree: each settable knob of the
// host and of a device read once, what a write would meet judged without writing, and the knobs
// the kernel lacks told apart from those it failed to read.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "agent/check/knob_reach.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::check {
namespace {

using ::testing::HasSubstr;
using tuner::Knob;

class KnobReachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "nictune-reach-XXXXXX").native();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    for (const char* sysctl : {"core/netdev_budget", "core/netdev_budget_usecs", "core/dev_weight",
                               "core/dev_weight_rx_bias", "core/dev_weight_tx_bias",
                               "core/rmem_default", "core/rmem_max", "ipv4/udp_rmem_min"}) {
      Put(std::string("proc/sys/net/") + sysctl, "300\n");
    }
    Put("sys/class/net/" + device_ + "/napi_defer_hard_irqs", "0\n");
    Put("sys/class/net/" + device_ + "/gro_flush_timeout", "0\n");
    Put("sys/class/net/" + device_ + "/ifindex", "7\n");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Put(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::trunc) << text;
  }
  driver::knobs::KernelPaths Paths() const {
    return {.proc_root = root_ + "/proc", .sys_root = root_ + "/sys"};
  }

  std::string root_;
  // A name no real device of this host has, so that its coalescing cannot be read.
  std::string device_ = "nkr" + std::to_string(getpid());
};

std::map<Knob, KnobAccessCheck> ByKnob(const KnobReach& reach) {
  std::map<Knob, KnobAccessCheck> out;
  for (const KnobAccessCheck& check : reach.knobs) out[check.knob] = check;
  return out;
}

TEST_F(KnobReachTest, TheHostsSysctlsAreReadAndJudgedWritableWithoutWriting) {
  const KnobReach reach = CheckKnobReach(Paths(), "host", "", absl::OkStatus());
  EXPECT_EQ(reach.target, "host");
  ASSERT_EQ(reach.knobs.size(), 8u) << "the eight sysctls, not the device knobs or SO_RCVBUF";
  for (const KnobAccessCheck& check : reach.knobs) {
    EXPECT_TRUE(check.read.ok()) << tuner::KnobName(check.knob) << ": " << check.read;
    EXPECT_TRUE(check.write.ok()) << tuner::KnobName(check.knob) << ": " << check.write;
  }
  std::ifstream budget(root_ + "/proc/sys/net/core/netdev_budget");
  std::string held;
  std::getline(budget, held);
  EXPECT_EQ(held, "300") << "nothing is written";
}

TEST_F(KnobReachTest, AMissingSysctlIsUnsupportedAndAGarbledOneUnreadable) {
  std::filesystem::remove(root_ + "/proc/sys/net/ipv4/udp_rmem_min");
  Put("proc/sys/net/core/rmem_max", "lots\n");
  const std::map<Knob, KnobAccessCheck> knobs =
      ByKnob(CheckKnobReach(Paths(), "host", "", absl::OkStatus()));
  EXPECT_TRUE(absl::IsUnimplemented(knobs.at(Knob::kUdpRmemMin).read))
      << knobs.at(Knob::kUdpRmemMin).read;
  EXPECT_FALSE(knobs.at(Knob::kRmemMax).read.ok());
  EXPECT_FALSE(absl::IsUnimplemented(knobs.at(Knob::kRmemMax).read));
  EXPECT_THAT(knobs.at(Knob::kRmemMax).read.message(), HasSubstr("rmem_max"));
  EXPECT_TRUE(knobs.at(Knob::kRmemDefault).read.ok());
}

TEST_F(KnobReachTest, ADevicesKnobsNeedCapNetAdminToBeWritten) {
  const KnobReach reach = CheckKnobReach(Paths(), device_, "fake", absl::OkStatus());
  EXPECT_EQ(reach.driver, "fake");
  std::map<Knob, KnobAccessCheck> knobs = ByKnob(reach);
  ASSERT_EQ(knobs.size(), 5u) << "coalescing (three) and the two sysfs settings";
  EXPECT_TRUE(knobs.at(Knob::kGroFlushTimeout).read.ok()) << knobs.at(Knob::kGroFlushTimeout).read;
  EXPECT_TRUE(knobs.at(Knob::kGroFlushTimeout).write.ok());
  EXPECT_TRUE(knobs.at(Knob::kNapiDeferHardIrqs).read.ok());
  // The kernel has no device of that name: its coalescing cannot be read, whatever the tree says.
  EXPECT_FALSE(knobs.at(Knob::kRxUsecs).read.ok());
  EXPECT_TRUE(knobs.at(Knob::kRxUsecs).write.ok()) << "a write is judged only for a read knob";

  const absl::Status no_admin = absl::PermissionDeniedError("CAP_NET_ADMIN not held");
  knobs = ByKnob(CheckKnobReach(Paths(), device_, "fake", no_admin));
  EXPECT_TRUE(knobs.at(Knob::kGroFlushTimeout).read.ok());
  EXPECT_EQ(knobs.at(Knob::kGroFlushTimeout).write, no_admin);
}

}  // namespace
}  // namespace nictune::check
