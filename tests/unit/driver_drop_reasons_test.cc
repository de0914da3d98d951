// SPDX-License-Identifier: Apache-2.0
// Drop reason names come from the kernel's BTF; these tests check the naming rules on entries
// shaped like real kernels' enums and on this machine's own /sys/kernel/btf/vmlinux.
#include <filesystem>
#include <string>
#include <vector>

#include "driver/bpf/drop_reasons.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

using ::testing::Optional;

// enum skb_drop_reason as 6.x kernels shape it, with the subsystem enum and openvswitch's own.
std::vector<EnumEntry> KernelShapedEntries() {
  return {
      {"skb_drop_reason", "SKB_NOT_DROPPED_YET", 0},
      {"skb_drop_reason", "SKB_CONSUMED", 1},
      {"skb_drop_reason", "SKB_DROP_REASON_NOT_SPECIFIED", 2},
      {"skb_drop_reason", "SKB_DROP_REASON_NO_SOCKET", 3},
      {"skb_drop_reason", "SKB_DROP_REASON_SOCKET_RCVBUFF", 6},
      {"skb_drop_reason", "SKB_DROP_REASON_MAX", 7},
      {"skb_drop_reason", "SKB_DROP_REASON_SUBSYS_MASK", 0xFFFF0000},
      {"skb_drop_reason_subsys", "SKB_DROP_REASON_SUBSYS_CORE", 0},
      {"skb_drop_reason_subsys", "SKB_DROP_REASON_SUBSYS_MAC80211_UNUSABLE", 1},
      {"skb_drop_reason_subsys", "SKB_DROP_REASON_SUBSYS_OPENVSWITCH", 2},
      {"skb_drop_reason_subsys", "SKB_DROP_REASON_SUBSYS_NUM", 3},
      // mac80211's enum mixes rx results (not drops) with its subsystem's reasons.
      {"mac80211_drop_reason", "RX_CONTINUE", 1},
      {"mac80211_drop_reason", "RX_QUEUED", 0},
      {"mac80211_drop_reason", "RX_DROP_U_START", 0x10000},
      {"mac80211_drop_reason", "RX_DROP_U_MIC_FAIL", 0x10000},
      {"mac80211_drop_reason", "RX_DROP_U_REPLAY", 0x10001},
      {"ovs_drop_reason", "OVS_DROP_LAST_ACTION", 0x20000},
      {"ovs_drop_reason", "OVS_DROP_ACTION_ERROR", 0x20001},
  };
}

TEST(DropReasonNamesTest, StripsTheCorePrefixAndKeepsOtherNames) {
  absl::StatusOr<DropReasonNames> names = DropReasonNames::FromEnums(KernelShapedEntries());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(names->Name(2), "NOT_SPECIFIED");
  EXPECT_EQ(names->Name(6), "SOCKET_RCVBUFF");
  EXPECT_EQ(names->Name(1), "SKB_CONSUMED");
  EXPECT_THAT(names->Value("NO_SOCKET"), Optional(3u));
  EXPECT_FALSE(names->Value("MAX").has_value());
  EXPECT_FALSE(names->Value("SUBSYS_MASK").has_value());
}

TEST(DropReasonNamesTest, NamesSubsystemReasonsFromTheirOwnEnums) {
  absl::StatusOr<DropReasonNames> names = DropReasonNames::FromEnums(KernelShapedEntries());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(names->Name(0x20000), "OVS_DROP_LAST_ACTION");
  EXPECT_EQ(names->Name(0x20001), "OVS_DROP_ACTION_ERROR");
  // The range marker shares its value with the first reason; the reason's name wins.
  EXPECT_EQ(names->Name(0x10000), "RX_DROP_U_MIC_FAIL");
  EXPECT_EQ(names->Name(0x10001), "RX_DROP_U_REPLAY");
  // RX_CONTINUE / RX_QUEUED carry no subsystem bits: they must not shadow core reasons.
  EXPECT_EQ(names->Name(1), "SKB_CONSUMED");
  EXPECT_FALSE(names->Value("RX_CONTINUE").has_value());
}

TEST(DropReasonNamesTest, UnknownValuesSayWhatTheyAre) {
  absl::StatusOr<DropReasonNames> names = DropReasonNames::FromEnums(KernelShapedEntries());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(names->Name(0x20007), "SUBSYS_OPENVSWITCH_7");  // module enum without this value
  EXPECT_EQ(names->Name(0x70002), "UNKNOWN_458754");        // subsystem this kernel lacks
  EXPECT_EQ(names->Name(99), "UNKNOWN_99");
}

TEST(DropReasonNamesTest, DerivesTheSubsystemShiftFromTheKernelsMask) {
  std::vector<EnumEntry> entries = {
      {"skb_drop_reason", "SKB_DROP_REASON_NOT_SPECIFIED", 2},
      {"skb_drop_reason", "SKB_DROP_REASON_SUBSYS_MASK", 0xFF000000},
      {"skb_drop_reason_subsys", "SKB_DROP_REASON_SUBSYS_OPENVSWITCH", 2},
      {"ovs_drop_reason", "OVS_DROP_LAST_ACTION", 0x02000000},
  };
  absl::StatusOr<DropReasonNames> names = DropReasonNames::FromEnums(entries);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(names->Name(0x02000000), "OVS_DROP_LAST_ACTION");
  EXPECT_EQ(names->Name(0x02000005), "SUBSYS_OPENVSWITCH_5");
}

TEST(DropReasonNamesTest, KernelsWithoutDropReasonsAreAnError) {
  absl::StatusOr<DropReasonNames> names =
      DropReasonNames::FromEnums({{"ovs_drop_reason", "OVS_DROP_LAST_ACTION", 0x20000}});
  ASSERT_FALSE(names.ok());
  EXPECT_THAT(std::string(names.status().message()), ::testing::HasSubstr("skb_drop_reason"));
}

TEST(DropReasonNamesTest, MissingBtfFileNamesThePath) {
  absl::StatusOr<std::vector<EnumEntry>> entries =
      DropReasonEnumsFromFile("/nonexistent/nictune/vmlinux");
  ASSERT_FALSE(entries.ok());
  EXPECT_THAT(std::string(entries.status().message()),
              ::testing::HasSubstr("/nonexistent/nictune/vmlinux"));
  EXPECT_THAT(std::string(entries.status().message()), ::testing::HasSubstr("errno 2"));
}

// This machine's kernel: the enum read from its BTF, not a table.
TEST(DropReasonNamesTest, RunningKernelBtf) {
  const std::string vmlinux = "/sys/kernel/btf/vmlinux";
  if (!std::filesystem::exists(vmlinux))
    GTEST_SKIP() << "the kernel has no BTF (" << vmlinux << ")";
  absl::StatusOr<std::vector<EnumEntry>> entries = DropReasonEnumsFromFile(vmlinux);
  ASSERT_TRUE(entries.ok()) << entries.status();
  absl::StatusOr<DropReasonNames> names = DropReasonNames::FromEnums(*entries);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(names->Value("SOCKET_RCVBUFF"), Optional(::testing::_));
  EXPECT_THAT(names->Value("NOT_SPECIFIED"), Optional(2u));
  EXPECT_THAT(names->Value("NO_SOCKET"), Optional(::testing::_));
  EXPECT_EQ(names->Name(*names->Value("SOCKET_RCVBUFF")), "SOCKET_RCVBUFF");
  // 6.x kernels have well over 100 reasons; a handful would mean the enum was misread.
  EXPECT_GT(names->size(), 60u);

  absl::StatusOr<DropReasonNames> running = RunningKernelDropReasons();
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_EQ(running->Value("SOCKET_RCVBUFF"), names->Value("SOCKET_RCVBUFF"));
}

}  // namespace
}  // namespace nictune::driver::bpf
