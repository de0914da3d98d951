// SPDX-License-Identifier: Apache-2.0
// The command a person runs to set each kind of knob by hand, from the knob catalog: ethtool for
// coalescing, sysctl for the host, a sysfs write for a device, netlink napi-set for one NAPI
// instance, and advice for an application's socket. Odd device names stay one shell word.
#include "driver/knobs/knob_commands.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::knobs {
namespace {

using tuner::Knob;

std::string CommandOk(Knob knob, const std::string& target, int64_t value) {
  absl::StatusOr<std::string> command = ShellCommandFor({.knob = knob, .target = target}, value);
  EXPECT_TRUE(command.ok()) << command.status();
  return command.ok() ? *command : "";
}

TEST(KnobCommandsTest, EachHomeHasItsCommand) {
  EXPECT_EQ(CommandOk(Knob::kRxUsecs, "eth0", 50), "ethtool -C eth0 rx-usecs 50");
  EXPECT_EQ(CommandOk(Knob::kRxFrames, "eth0", 32), "ethtool -C eth0 rx-frames 32");
  EXPECT_EQ(CommandOk(Knob::kAdaptiveRx, "eth0", 0), "ethtool -C eth0 adaptive-rx off");
  EXPECT_EQ(CommandOk(Knob::kNetdevBudget, "host", 600), "sysctl -w net.core.netdev_budget=600");
  EXPECT_EQ(CommandOk(Knob::kUdpRmemMin, "host", 8192), "sysctl -w net.ipv4.udp_rmem_min=8192");
  EXPECT_EQ(CommandOk(Knob::kNapiDeferHardIrqs, "eth0", 2),
            "echo 2 > /sys/class/net/eth0/napi_defer_hard_irqs");
  EXPECT_EQ(CommandOk(Knob::kGroFlushTimeout, "eth0 napi 8193", 200000),
            "ynl --family netdev --do napi-set --json '{\"id\": 8193, \"gro-flush-timeout\": "
            "200000}'");
  EXPECT_EQ(CommandOk(Knob::kNapiThreaded, "eth0", 1), "echo 1 > /sys/class/net/eth0/threaded");
  EXPECT_EQ(CommandOk(Knob::kRxRing, "eth0", 1024),
            "ethtool -G eth0 rx 1024  # most drivers restart the device's queues for it: pick the "
            "moment");
  EXPECT_THAT(CommandOk(Knob::kSoRcvbuf, "udp 0.0.0.0:5001 pid 812 (netserver)", 425984),
              ::testing::StartsWith("# udp 0.0.0.0:5001 pid 812 (netserver): setsockopt(SO_RCVBUF, "
                                    "425984)"));
}

// A tuned profile applies at every profile switch, on live traffic: the ring stays a person's.
TEST(KnobCommandsTest, TheRingIsLeftOutOfATunedProfile) {
  absl::StatusOr<TunedSetting> ring =
      TunedSettingFor({.knob = Knob::kRxRing, .target = "eth0"}, 1024);
  EXPECT_EQ(ring.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(ring.status().message()),
              ::testing::HasSubstr("set by hand with ethtool -G"));
}

TEST(KnobCommandsTest, AnOddDeviceNameIsQuotedAsOneShellWord) {
  EXPECT_EQ(CommandOk(Knob::kRxUsecs, "a$b;c", 8), "ethtool -C 'a$b;c' rx-usecs 8");
  EXPECT_EQ(CommandOk(Knob::kRxUsecs, "it's", 8), "ethtool -C 'it'\\''s' rx-usecs 8");
  EXPECT_EQ(CommandOk(Knob::kRxUsecs, "veth-a.10@x", 8), "ethtool -C veth-a.10@x rx-usecs 8");
  // The kernel-name text's escapes are the name's real bytes.
  EXPECT_EQ(CommandOk(Knob::kRxUsecs, "a\\\\b", 8), "ethtool -C 'a\\b' rx-usecs 8");
  EXPECT_EQ(CommandOk(Knob::kRxUsecs, "-x", 8),
            "# device -x starts with '-': set it by hand with care");
  EXPECT_EQ(CommandOk(Knob::kSoRcvbuf, "udp\nreboot", 8).find('\n'), std::string::npos);
}

TEST(KnobCommandsTest, ATargetTheKnobDoesNotHaveIsAnError) {
  EXPECT_FALSE(ShellCommandFor({.knob = Knob::kNetdevBudget, .target = "eth0"}, 600).ok());
  EXPECT_FALSE(ShellCommandFor({.knob = Knob::kRxUsecs, .target = "host"}, 50).ok());
  EXPECT_FALSE(ShellCommandFor({.knob = Knob::kRxUsecs, .target = "eth0 napi 3"}, 50).ok());
  EXPECT_FALSE(ShellCommandFor({.knob = Knob::kRxUsecs, .target = "../etc"}, 50).ok());
  // Threads are switched for the whole device here; napi-set's per-instance twins are the
  // deferral's.
  EXPECT_FALSE(ShellCommandFor({.knob = Knob::kNapiThreaded, .target = "eth0 napi 3"}, 1).ok());
  EXPECT_EQ(
      TunedSettingFor({.knob = Knob::kNapiThreaded, .target = "eth0 napi 3"}, 1).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(KnobCommandsTest, ThreadedNapiGoesToATunedProfilesSysfsPlugin) {
  absl::StatusOr<TunedSetting> threaded =
      TunedSettingFor({.knob = Knob::kNapiThreaded, .target = "eth0"}, 1);
  ASSERT_TRUE(threaded.ok()) << threaded.status();
  EXPECT_EQ(threaded->plugin, TunedPlugin::kSysfs);
  EXPECT_EQ(threaded->option, "/sys/class/net/eth0/threaded=1");
}

TEST(KnobCommandsTest, OnlyHostSysctlsHaveASysctlConfLine) {
  EXPECT_EQ(SysctlConfLine(Knob::kRmemDefault, 425984), "net.core.rmem_default = 425984");
  EXPECT_EQ(SysctlConfLine(Knob::kRxUsecs, 50), std::nullopt);
  EXPECT_EQ(SysctlConfLine(Knob::kSoRcvbuf, 50), std::nullopt);
}

}  // namespace
}  // namespace nictune::driver::knobs
