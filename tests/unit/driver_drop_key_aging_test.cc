// SPDX-License-Identifier: Apache-2.0
// The drop probe's key aging (driver/bpf/drop_key_aging.h): which keys go, and that their counts
// stay in their group's sum.
#include "driver/bpf/drop_key_aging.h"

#include <cstring>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr uint64_t kSecond = 1'000'000'000;

nictune_drop_key Key(uint16_t port, uint64_t cookie = 0, uint32_t reason = 2) {
  nictune_drop_key key;
  std::memset(&key, 0, sizeof(key));
  key.reason = reason;
  key.protocol = 0x0800;
  key.l4_protocol = 17;
  key.ifindex = 3;
  key.local_port = port;
  key.socket_cookie = cookie;
  std::memcpy(key.device, "veth1", 5);
  return key;
}

using Held = std::vector<std::pair<nictune_drop_key, uint64_t>>;

TEST(DropKeyAgingTest, AKeyIsPrunedOnceItsCountHasNotMovedForTheIdleTime) {
  DropKeyAging aging(100, {.idle_ns = 10 * kSecond});
  Held held = {{Key(53), 5}, {Key(54), 1}};
  EXPECT_THAT(aging.SelectIdle(held, 0), IsEmpty());
  held[0].second = 6;  // port 53 keeps dropping; port 54 goes quiet
  EXPECT_THAT(aging.SelectIdle(held, 5 * kSecond), IsEmpty());
  held[0].second = 7;
  EXPECT_THAT(aging.SelectIdle(held, 10 * kSecond), ElementsAre(1));
}

TEST(DropKeyAgingTest, UnderPressureAKeyIdleSinceThePreviousReadGoes) {
  DropKeyAging aging(4, {.idle_ns = 10 * kSecond, .pressure_share = 0.5});
  Held held = {{Key(1), 1}, {Key(2), 1}, {Key(3), 1}};  // 3 of 4: over half full
  EXPECT_THAT(aging.SelectIdle(held, 0), IsEmpty());
  held[2].second = 2;
  EXPECT_THAT(aging.SelectIdle(held, kSecond), ElementsAre(0, 1));
}

TEST(DropKeyAgingTest, PrunedCountsAreSummedPerReasonProtocolAndDevice) {
  DropKeyAging aging(100, {});
  aging.Retire(Key(53, 0), 5, 0);
  aging.Retire(Key(54, 0), 7, 0);
  aging.Retire(Key(9000, 77, /*reason=*/6), 3, 0);
  const Held groups = aging.PrunedGroups({}, kSecond);
  ASSERT_EQ(groups.size(), 2u);
  uint64_t no_socket = 0;
  uint64_t rcvbuff = 0;
  for (const auto& [group, total] : groups) {
    EXPECT_EQ(group.local_port, 0);
    EXPECT_EQ(group.socket_cookie, 0u);
    EXPECT_EQ(group.ifindex, 3);
    (group.reason == 2 ? no_socket : rcvbuff) += total;
  }
  EXPECT_EQ(no_socket, 12u);
  EXPECT_EQ(rcvbuff, 3u);
  EXPECT_EQ(aging.pruned(), 3u);
}

TEST(DropKeyAgingTest, AGroupIsForgottenOnlyWhenLongIdleAndNoHeldKeyIsOfIt) {
  DropKeyAging aging(100, {.forget_group_ns = 60 * kSecond});
  aging.Retire(Key(53), 5, 0);
  // Still a held key of its group (another port): kept, or the group's total would fall.
  EXPECT_EQ(aging.PrunedGroups(Held{{Key(80), 1}}, 120 * kSecond).size(), 1u);
  EXPECT_EQ(aging.PrunedGroups({}, 30 * kSecond).size(), 1u);
  EXPECT_THAT(aging.PrunedGroups({}, 60 * kSecond), IsEmpty());
}

TEST(DropKeyAgingTest, AHundredThousandPortsNeverHoldMoreThanTheMapAndLoseNoCount) {
  // A scan over every port, 1000 new ports a read into a map of 8192: what the aging keeps is
  // bounded, and what it prunes is kept in the sums.
  DropKeyAging aging(8192, {.idle_ns = 10 * kSecond});
  Held held;
  uint64_t dropped = 0;
  for (uint64_t read = 0; read < 100; ++read) {
    for (uint16_t i = 0; i < 1000 && held.size() < 8192; ++i) {
      held.emplace_back(Key(static_cast<uint16_t>(read * 1000 + i)), 1);
      ++dropped;
    }
    const std::vector<size_t> idle = aging.SelectIdle(held, read * kSecond);
    Held kept;
    size_t next = 0;
    for (size_t i = 0; i < held.size(); ++i) {
      if (next < idle.size() && idle[next] == i) {
        aging.Retire(held[i].first, held[i].second, read * kSecond);
        ++next;
      } else {
        kept.push_back(held[i]);
      }
    }
    held = std::move(kept);
    ASSERT_LE(held.size(), 8192u);
  }
  uint64_t counted = 0;
  for (const auto& [key, total] : held) counted += total;
  for (const auto& [group, total] : aging.PrunedGroups(held, 100 * kSecond)) counted += total;
  EXPECT_EQ(counted, dropped);
  EXPECT_LT(held.size(), 4097u);  // over half full, what went quiet since the last read goes
}

}  // namespace
}  // namespace nictune::driver::bpf
