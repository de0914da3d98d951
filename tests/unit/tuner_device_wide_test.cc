// SPDX-License-Identifier: Apache-2.0
// Device-wide settings from per-queue recommendations: the queue that needs the shortest interval
// sets the device's coalescing and deferral.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/device_wide.h"

namespace nictune::tuner {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

Recommendation Rec(Knob knob, const std::string& target, int64_t recommended) {
  Recommendation r;
  r.knob = knob;
  r.target = target;
  r.scope = Scope::kQueue;
  r.recommended = recommended;
  r.formula = "fill math";
  return r;
}

TEST(StrictestQueuePerDeviceTest, TheQueueWithTheShortestIntervalSetsItsDevice) {
  std::vector<Recommendation> out = StrictestQueuePerDevice({
      {"eth0",
       "eth0 rx 0",
       {Rec(Knob::kRxUsecs, "eth0 rx 0", 50), Rec(Knob::kRxFrames, "eth0 rx 0", 40)}},
      {"eth1", "eth1", {Rec(Knob::kGroFlushTimeout, "eth1", 20000)}},
      {"eth0",
       "eth0 rx 1",
       {Rec(Knob::kRxUsecs, "eth0 rx 1", 20), Rec(Knob::kRxFrames, "eth0 rx 1", 16)}},
      {"eth0",
       "eth0 rx 2",
       {Rec(Knob::kRxUsecs, "eth0 rx 2", 80), Rec(Knob::kRxFrames, "eth0 rx 2", 64)}},
  });
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].knob, Knob::kRxUsecs);
  EXPECT_EQ(out[0].recommended, 20);
  EXPECT_EQ(out[1].knob, Knob::kRxFrames);
  EXPECT_EQ(out[1].recommended, 16);  // with its own rx-usecs, not the others' frames
  for (size_t i : {size_t{0}, size_t{1}}) {
    EXPECT_EQ(out[i].target, "eth0");
    EXPECT_EQ(out[i].scope, Scope::kDevice);
    EXPECT_THAT(out[i].formula,
                EndsWith("set per device: eth0 rx 1 needs the shortest interval of its 3 queues"));
  }
  EXPECT_EQ(out[2].target, "eth1");
  EXPECT_EQ(out[2].recommended, 20000);
  EXPECT_EQ(out[2].scope, Scope::kDevice);
  EXPECT_THAT(out[2].formula, Not(HasSubstr("set per device")));  // one queue: nothing to choose
}

TEST(StrictestQueuePerDeviceTest, SoftwareTimerDecidesWhereNoQueueHasRxUsecs) {
  std::vector<Recommendation> out = StrictestQueuePerDevice({
      {"veth0", "veth0 rx 0", {Rec(Knob::kGroFlushTimeout, "veth0", 90000)}},
      {"veth0", "veth0 rx 1", {Rec(Knob::kGroFlushTimeout, "veth0", 30000)}},
  });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].recommended, 30000);
  EXPECT_EQ(out[0].target, "veth0");
}

}  // namespace
}  // namespace nictune::tuner
