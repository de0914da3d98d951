// The softirq timing duty cycle's decisions (driver/bpf/softirq_duty_plan.h): attached whole while
// softirqs are rare, otherwise one slot per period that times about timed_per_s softirqs a second
// on the busiest CPU, at the phase drawn.
#include <optional>

#include "driver/bpf/softirq_duty_plan.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

const SoftirqDutyOptions kDefaults;  // 10000 timed/s, 200 ms periods, whole from half, 1 ms tail

TEST(SoftirqDutyPlanTest, UnknownOrNoRateStaysWhole) {
  EXPECT_TRUE(PlanSoftirqDuty(std::nullopt, 0.5, kDefaults).whole);
  EXPECT_TRUE(PlanSoftirqDuty(0.0, 0.5, kDefaults).whole);
  EXPECT_EQ(PlanSoftirqDuty(std::nullopt, 0.5, kDefaults).share, 1.0);
}

TEST(SoftirqDutyPlanTest, UpToTwiceTheTargetRateStaysWhole) {
  // Timing 10000 of 20000 a second would need half the time: not worth the link operations.
  EXPECT_TRUE(PlanSoftirqDuty(15000.0, 0.5, kDefaults).whole);
  EXPECT_TRUE(PlanSoftirqDuty(20000.0, 0.5, kDefaults).whole);
  EXPECT_FALSE(PlanSoftirqDuty(20001.0, 0.5, kDefaults).whole);
}

TEST(SoftirqDutyPlanTest, AFloodGetsASlotThatTimesTheTargetOnTheBusiestCpu) {
  // 770000 softirqs/s: 10000/770000 of 200 ms = 2.597 ms, truncated to the microsecond.
  const SoftirqDutyPlan plan = PlanSoftirqDuty(770000.0, 0.0, kDefaults);
  EXPECT_FALSE(plan.whole);
  EXPECT_EQ(plan.slot_length, absl::Microseconds(2597));
  EXPECT_DOUBLE_EQ(plan.share, 2597.0 / 200000.0);
  EXPECT_EQ(plan.slot_start, absl::ZeroDuration());
  // 40000/s: a quarter of the time, 50 ms.
  EXPECT_EQ(PlanSoftirqDuty(40000.0, 0.0, kDefaults).slot_length, absl::Milliseconds(50));
}

TEST(SoftirqDutyPlanTest, ThePhasePlacesTheSlotAndItsTailInsideThePeriod) {
  // 200 ms - 2.597 ms slot - 1 ms tail = 196.403 ms of room.
  const SoftirqDutyPlan middle = PlanSoftirqDuty(770000.0, 0.5, kDefaults);
  EXPECT_EQ(middle.slot_start, absl::Microseconds(98201));  // half of it, truncated
  const SoftirqDutyPlan last = PlanSoftirqDuty(770000.0, 0.999999999, kDefaults);
  EXPECT_LE(last.slot_start + last.slot_length + kDefaults.exit_tail, kDefaults.period);
  EXPECT_GT(last.slot_start, absl::Microseconds(196400));
  // A draw outside [0, 1) is held to it.
  EXPECT_EQ(PlanSoftirqDuty(770000.0, 7.0, kDefaults).slot_start, absl::Microseconds(196403));
  EXPECT_EQ(PlanSoftirqDuty(770000.0, -1.0, kDefaults).slot_start, absl::ZeroDuration());
}

TEST(SoftirqDutyPlanTest, AnExtremeRateGetsTheShortestSlot) {
  // 100 M/s would ask for 20 us: 1 ms instead (it times 5x the target rather than attach for a
  // handful of softirqs).
  const SoftirqDutyPlan plan = PlanSoftirqDuty(1e8, 0.0, kDefaults);
  EXPECT_EQ(plan.slot_length, absl::Milliseconds(1));
  EXPECT_DOUBLE_EQ(plan.share, 0.005);
}

TEST(SoftirqDutyPlanTest, NoTargetKeepsThePairWhole) {
  SoftirqDutyOptions options;
  options.timed_per_s = 0;
  EXPECT_TRUE(PlanSoftirqDuty(770000.0, 0.5, options).whole);
}

TEST(SoftirqDutyPlanTest, ASlotThatWouldNotFitWithItsTailInThePeriodStaysWhole) {
  SoftirqDutyOptions options;
  options.period = absl::Milliseconds(2);
  options.min_slot = absl::Milliseconds(1);
  options.exit_tail = absl::Microseconds(1500);
  EXPECT_TRUE(PlanSoftirqDuty(770000.0, 0.5, options).whole);
}

}  // namespace
}  // namespace nictune::driver::bpf
