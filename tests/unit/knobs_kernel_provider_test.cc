// SPDX-License-Identifier: Apache-2.0
// KernelKnobProvider on a fake /proc and /sys tree in a temporary directory: which access each
// (knob, target) gets, sysctl and sysfs reads and writes through it, and the values refused
// before anything is written.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "driver/knobs/file_knob.h"
#include "driver/knobs/kernel_knob_provider.h"
#include "driver/knobs/knob_catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/knob.h"

namespace nictune::driver::knobs {
namespace {

using ::testing::HasSubstr;
using tuner::Knob;

constexpr char kDevice[] = "fakenic0";

class KernelKnobProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "nictune-tree-XXXXXX").native();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    // Values as a 6.18 host shows them.
    Put("proc/sys/net/core/netdev_budget", "300\n");
    Put("proc/sys/net/core/netdev_budget_usecs", "8000\n");
    Put("proc/sys/net/core/dev_weight", "64\n");
    Put("proc/sys/net/core/dev_weight_rx_bias", "1\n");
    Put("proc/sys/net/core/dev_weight_tx_bias", "1\n");
    Put("proc/sys/net/core/rmem_default", "212992\n");
    Put("proc/sys/net/core/rmem_max", "212992\n");
    Put("proc/sys/net/ipv4/udp_rmem_min", "4096\n");
    Put(std::string("sys/class/net/") + kDevice + "/napi_defer_hard_irqs", "0\n");
    Put(std::string("sys/class/net/") + kDevice + "/gro_flush_timeout", "0\n");
    Put(std::string("sys/class/net/") + kDevice + "/ifindex", "7\n");
    provider_ = std::make_unique<KernelKnobProvider>(
        KernelPaths{.proc_root = root_ + "/proc", .sys_root = root_ + "/sys"});
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Put(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = std::filesystem::path(root_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::trunc) << text;
  }
  std::string Contents(const std::string& relative) const {
    std::ifstream in(std::filesystem::path(root_) / relative);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  absl::StatusOr<std::unique_ptr<KnobAccess>> Open(Knob knob, const std::string& target) {
    return provider_->Open(KnobAddress{.knob = knob, .target = target});
  }

  std::string root_;
  std::unique_ptr<KernelKnobProvider> provider_;
};

struct HostSysctl {
  Knob knob;
  const char* relative;
  int64_t value_now;
};

constexpr HostSysctl kHostSysctls[] = {
    {Knob::kNetdevBudget, "proc/sys/net/core/netdev_budget", 300},
    {Knob::kNetdevBudgetUsecs, "proc/sys/net/core/netdev_budget_usecs", 8000},
    {Knob::kDevWeight, "proc/sys/net/core/dev_weight", 64},
    {Knob::kDevWeightRxBias, "proc/sys/net/core/dev_weight_rx_bias", 1},
    {Knob::kDevWeightTxBias, "proc/sys/net/core/dev_weight_tx_bias", 1},
    {Knob::kRmemDefault, "proc/sys/net/core/rmem_default", 212992},
    {Knob::kRmemMax, "proc/sys/net/core/rmem_max", 212992},
    {Knob::kUdpRmemMin, "proc/sys/net/ipv4/udp_rmem_min", 4096},
};

TEST_F(KernelKnobProviderTest, EveryHostSysctlReadsAndWritesItsOwnFile) {
  for (const HostSysctl& sysctl : kHostSysctls) {
    SCOPED_TRACE(std::string(tuner::KnobName(sysctl.knob)));
    absl::StatusOr<std::unique_ptr<KnobAccess>> knob = Open(sysctl.knob, "host");
    ASSERT_TRUE(knob.ok()) << knob.status();
    EXPECT_EQ((*knob)->address().knob, sysctl.knob);
    EXPECT_EQ((*knob)->address().target, "host");
    absl::StatusOr<int64_t> value = (*knob)->Read();
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(*value, sysctl.value_now);
    const int64_t doubled = sysctl.value_now * 2;
    ASSERT_TRUE((*knob)->Write(doubled).ok());
    absl::StatusOr<int64_t> after = (*knob)->Read();
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_EQ(*after, doubled);
    EXPECT_EQ(Contents(sysctl.relative), std::to_string(doubled));
  }
}

TEST_F(KernelKnobProviderTest, DeviceSysfsKnobsReadAndWriteTheDevicesFiles) {
  absl::StatusOr<std::unique_ptr<KnobAccess>> defer = Open(Knob::kNapiDeferHardIrqs, kDevice);
  ASSERT_TRUE(defer.ok()) << defer.status();
  ASSERT_TRUE((*defer)->Write(2).ok());
  EXPECT_EQ(Contents(std::string("sys/class/net/") + kDevice + "/napi_defer_hard_irqs"), "2");
  absl::StatusOr<std::unique_ptr<KnobAccess>> gro = Open(Knob::kGroFlushTimeout, kDevice);
  ASSERT_TRUE(gro.ok()) << gro.status();
  ASSERT_TRUE((*gro)->Write(200000).ok());
  absl::StatusOr<int64_t> value = (*gro)->Read();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 200000);
  Put(std::string("sys/class/net/") + kDevice + "/threaded", "0\n");
  absl::StatusOr<std::unique_ptr<KnobAccess>> threaded = Open(Knob::kNapiThreaded, kDevice);
  ASSERT_TRUE(threaded.ok()) << threaded.status();
  ASSERT_TRUE((*threaded)->Write(1).ok());
  EXPECT_EQ(Contents(std::string("sys/class/net/") + kDevice + "/threaded"), "1");
  EXPECT_EQ((*threaded)->Write(2).code(), absl::StatusCode::kInvalidArgument);
  // Another device's files are not these.
  Put("sys/class/net/other0/napi_defer_hard_irqs", "9\n");
  absl::StatusOr<std::unique_ptr<KnobAccess>> other = Open(Knob::kNapiDeferHardIrqs, "other0");
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<int64_t> other_value = (*other)->Read();
  ASSERT_TRUE(other_value.ok()) << other_value.status();
  EXPECT_EQ(*other_value, 9);
}

TEST_F(KernelKnobProviderTest, ValuesOutsideTheKernelsRangeAreRefusedBeforeWriting) {
  struct Case {
    Knob knob;
    const char* target;
    int64_t value;
    const char* range;
  };
  const Case cases[] = {
      {Knob::kNetdevBudget, "host", 0, "1..2147483647"},
      {Knob::kNetdevBudgetUsecs, "host", -1, "0..2147483647"},
      {Knob::kDevWeight, "host", 0, "1..2147483647"},
      {Knob::kDevWeightRxBias, "host", 2147483648, "1..2147483647"},
      {Knob::kRmemMax, "host", 2303, "2304..2147483647"},
      {Knob::kRmemDefault, "host", 1024, "2304..2147483647"},
      {Knob::kUdpRmemMin, "host", 0, "1..2147483647"},
      {Knob::kNapiDeferHardIrqs, kDevice, 2147483648, "0..2147483647"},
      {Knob::kGroFlushTimeout, kDevice, -1, "0..9223372036854775807"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(tuner::KnobName(c.knob)));
    absl::StatusOr<std::unique_ptr<KnobAccess>> knob = Open(c.knob, c.target);
    ASSERT_TRUE(knob.ok()) << knob.status();
    const std::string path = static_cast<FileKnob&>(**knob).path();
    std::ifstream before_in(path);
    std::stringstream before;
    before << before_in.rdbuf();
    const absl::Status status = (*knob)->Write(c.value);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(std::string(tuner::KnobName(c.knob)) + " on " + c.target + ": " +
                          std::to_string(c.value) + " is outside " + c.range));
    std::ifstream after_in(path);
    std::stringstream after;
    after << after_in.rdbuf();
    EXPECT_EQ(after.str(), before.str()) << "nothing may be written";
  }
  // The edges themselves are accepted.
  absl::StatusOr<std::unique_ptr<KnobAccess>> rmem = Open(Knob::kRmemMax, "host");
  ASSERT_TRUE(rmem.ok());
  EXPECT_TRUE((*rmem)->Write(2304).ok());
  absl::StatusOr<std::unique_ptr<KnobAccess>> defer = Open(Knob::kNapiDeferHardIrqs, kDevice);
  ASSERT_TRUE(defer.ok());
  EXPECT_TRUE((*defer)->Write(2147483647).ok());
}

TEST_F(KernelKnobProviderTest, CoalescingAndNapiValuesAreCheckedBeforeAnyNetlink) {
  // The fake device does not exist in the kernel: a value that got past the range check would
  // come back as a netlink error, not InvalidArgument.
  absl::StatusOr<std::unique_ptr<KnobAccess>> adaptive = Open(Knob::kAdaptiveRx, kDevice);
  ASSERT_TRUE(adaptive.ok()) << adaptive.status();
  EXPECT_EQ((*adaptive)->Write(2).code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::unique_ptr<KnobAccess>> usecs = Open(Knob::kRxUsecs, kDevice);
  ASSERT_TRUE(usecs.ok()) << usecs.status();
  EXPECT_EQ((*usecs)->Write(4294967296).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*usecs)->Write(-1).code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::unique_ptr<KnobAccess>> napi =
      Open(Knob::kNapiDeferHardIrqs, std::string(kDevice) + " napi 8193");
  ASSERT_TRUE(napi.ok()) << napi.status();
  EXPECT_EQ((*napi)->address().target, std::string(kDevice) + " napi 8193");
  EXPECT_EQ((*napi)->Write(-1).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(KernelKnobProviderTest, RoutesEachKindOfTargetOrSaysWhyNot) {
  // A host sysctl on a device, a device knob on the host.
  absl::StatusOr<std::unique_ptr<KnobAccess>> knob = Open(Knob::kNetdevBudget, kDevice);
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(knob.status().message()), HasSubstr("netdev_budget on fakenic0"));
  knob = Open(Knob::kRxUsecs, "host");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kInvalidArgument);
  knob = Open(Knob::kGroFlushTimeout, "host");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kInvalidArgument);
  // Coalescing and threads are per device here, never per NAPI.
  knob = Open(Knob::kRxFrames, std::string(kDevice) + " napi 8193");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kInvalidArgument);
  knob = Open(Knob::kNapiThreaded, std::string(kDevice) + " napi 8193");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(knob.status().message()), HasSubstr("set per device, not per NAPI"));
  // A device this kernel does not have belongs to someone else (the emulated NIC's provider).
  knob = Open(Knob::kRxUsecs, "nosuch0");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(knob.status().message()), HasSubstr("rx_usecs on nosuch0: no device"));
  knob = Open(Knob::kNapiDeferHardIrqs, "nosuch0 napi 8193");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kNotFound);
  // SO_RCVBUF is advice only, and the ring is set by hand.
  knob = Open(Knob::kSoRcvbuf, "host");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(knob.status().message()), HasSubstr("unsupported"));
  knob = Open(Knob::kRxRing, "eth0");
  EXPECT_EQ(knob.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(knob.status().message()), HasSubstr("set by hand"));
}

TEST_F(KernelKnobProviderTest, ASettingTheKernelLacksIsUnsupported) {
  std::filesystem::remove(std::filesystem::path(root_) / "proc/sys/net/ipv4/udp_rmem_min");
  absl::StatusOr<std::unique_ptr<KnobAccess>> knob = Open(Knob::kUdpRmemMin, "host");
  EXPECT_TRUE(IsUnsupported(knob.status())) << knob.status();
  EXPECT_THAT(std::string(knob.status().message()), HasSubstr("udp_rmem_min on host: unsupported"));
  std::filesystem::remove(std::filesystem::path(root_) / "sys/class/net" / kDevice /
                          "gro_flush_timeout");
  knob = Open(Knob::kGroFlushTimeout, kDevice);
  EXPECT_TRUE(IsUnsupported(knob.status())) << knob.status();
  // A file that goes away after the knob was opened while its device stays is unsupported on
  // read too, not a crash.
  absl::StatusOr<std::unique_ptr<KnobAccess>> defer = Open(Knob::kNapiDeferHardIrqs, kDevice);
  ASSERT_TRUE(defer.ok()) << defer.status();
  std::filesystem::remove(std::filesystem::path(root_) / "sys/class/net" / kDevice /
                          "napi_defer_hard_irqs");
  EXPECT_TRUE(IsUnsupported((*defer)->Read().status()));
}

TEST_F(KernelKnobProviderTest, ADeviceThatGoesAwayAfterOpenIsNotFoundNotUnsupported) {
  absl::StatusOr<std::unique_ptr<KnobAccess>> defer = Open(Knob::kNapiDeferHardIrqs, kDevice);
  ASSERT_TRUE(defer.ok()) << defer.status();
  // Unplugged, or renamed: either way SYS_ROOT/class/net/DEV is gone with its files.
  std::filesystem::remove_all(std::filesystem::path(root_) / "sys/class/net" / kDevice);
  const absl::Status read = (*defer)->Read().status();
  EXPECT_EQ(read.code(), absl::StatusCode::kNotFound) << read;
  EXPECT_THAT(std::string(read.message()),
              HasSubstr("napi_defer_hard_irqs on fakenic0: the device is gone"));
  const absl::Status write = (*defer)->Write(2);
  EXPECT_EQ(write.code(), absl::StatusCode::kNotFound) << write;
  // The host's sysctls have no device: a missing one stays unsupported.
  absl::StatusOr<std::unique_ptr<KnobAccess>> budget = Open(Knob::kNetdevBudget, "host");
  ASSERT_TRUE(budget.ok()) << budget.status();
  std::filesystem::remove(std::filesystem::path(root_) / "proc/sys/net/core/netdev_budget");
  EXPECT_TRUE(IsUnsupported((*budget)->Read().status()));
}

TEST_F(KernelKnobProviderTest, TargetsThatCouldEscapeTheTreeAreRefused) {
  for (const char* target :
       {"", "..", ".", "../../etc", "a/b", "fakenic0 napi", "fakenic0 napi 0", "fakenic0 napi x",
        "fakenic0 napi -1", "fakenic0 queue 1", "averyveryverylongname", "host host"}) {
    absl::StatusOr<std::unique_ptr<KnobAccess>> knob = Open(Knob::kNapiDeferHardIrqs, target);
    EXPECT_EQ(knob.status().code(), absl::StatusCode::kInvalidArgument) << "'" << target << "'";
  }
}

TEST(KnobCatalogTest, EveryTunerKnobHasAHomeAndARange) {
  for (const Knob knob : tuner::kAllKnobs) {
    const KnobSpec& spec = SpecOf(knob);
    SCOPED_TRACE(std::string(tuner::KnobName(knob)));
    EXPECT_EQ(spec.knob, knob);
    EXPECT_LE(spec.range.min, spec.range.max);
    EXPECT_FALSE(spec.range_basis.empty());
    if (knob == Knob::kSoRcvbuf) {
      EXPECT_EQ(spec.home, KnobHome::kAdviceOnly);
    } else {
      EXPECT_NE(spec.home, KnobHome::kAdviceOnly);
    }
  }
}

}  // namespace
}  // namespace nictune::driver::knobs
