// SPDX-License-Identifier: Apache-2.0
// The probe budget's plan: everything whole while it fits, the costliest hooks in slots when it
// does not, as many slots a period as their link operations allow, spread over it, the links
// paid from the budget at the hook's own measured cost, hooks that need a slotted one slotted
// with it, a hook with a gate gated when its gate costs less than its links, and a plan that says
// so when even the shortest slots are too dear.
#include <random>

#include "absl/strings/str_cat.h"
#include "driver/bpf/probe_budget_plan.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

// A veth flood of 800000 packets a second, each its own softirq and NAPI poll.
std::vector<HookLoad> Flood() {
  return {
      {.name = "softirq", .events_per_s = 800'000, .cost_ns_per_event = 120, .link_operations = 4},
      {.name = "napi", .events_per_s = 800'000, .cost_ns_per_event = 100},
      {.name = "irq", .events_per_s = 0, .cost_ns_per_event = 90, .link_operations = 4},
      {.name = "drops", .events_per_s = 20, .cost_ns_per_event = 300}};
}

HookMode ModeOf(const ProbeBudgetPlan& plan, const std::string& name) {
  for (const HookPlan& hook : plan.hooks) {
    if (hook.name == name) return hook.mode;
  }
  ADD_FAILURE() << "no hook " << name;
  return HookMode::kDetached;
}

TEST(ProbeBudgetPlanTest, AnIdleHostKeepsEveryHookWhole) {
  std::vector<HookLoad> idle = Flood();
  for (HookLoad& hook : idle) hook.events_per_s = 500;
  const ProbeBudgetPlan plan = PlanProbeBudget(idle, 0.5, {.cpu_share = 0.005});
  for (const HookPlan& hook : plan.hooks) EXPECT_EQ(hook.mode, HookMode::kWhole) << hook.name;
  EXPECT_DOUBLE_EQ(plan.share, 1);
  EXPECT_LT(plan.planned_ns_per_s, 0.005e9);
}

TEST(ProbeBudgetPlanTest, AFloodSlotsTheCostlyHooksWithinTheBudgetLinksIncluded) {
  // 0.5% of a CPU, 1 s periods, 200 us a link operation, one slot a period.
  const BudgetOptions options{.cpu_share = 0.005, .max_slots_per_period = 1};
  const ProbeBudgetPlan plan = PlanProbeBudget(Flood(), 0.5, options);
  EXPECT_EQ(ModeOf(plan, "softirq"), HookMode::kSlotted);
  EXPECT_EQ(ModeOf(plan, "napi"), HookMode::kSlotted);
  EXPECT_EQ(ModeOf(plan, "irq"), HookMode::kWhole);    // no events: costs nothing whole
  EXPECT_EQ(ModeOf(plan, "drops"), HookMode::kWhole);  // cheaper whole than its links
  EXPECT_FALSE(plan.over_budget);
  // 5 ms a second, less 6 link operations (1.2 ms) and the drops' 6 us, over 176 ms whole.
  const double expected_share = (5e6 - 1.2e6 - 6e3) / 176e6;
  EXPECT_NEAR(plan.share, expected_share, 1e-5);
  EXPECT_NEAR(plan.planned_ns_per_s, 5e6, 2e3);
  // Two slots of their own, neither carrying the other's programs, apart in time.
  ASSERT_EQ(plan.slots.size(), 2u);
  EXPECT_EQ(plan.slots[0].hooks, std::vector<size_t>{0});
  EXPECT_EQ(plan.slots[1].hooks, std::vector<size_t>{1});
  EXPECT_LE(plan.slots[0].start + plan.slot_length + options.exit_tail, plan.slots[1].start);
  EXPECT_LE(plan.slots[1].start + plan.slot_length + options.exit_tail, options.period);
}

TEST(ProbeBudgetPlanTest, SlotsAPeriodAreAsManyAsHalfTheBudgetPaysTheLinksOf) {
  // Cheaper links: 50 us each, 0.3 ms for the 6 of a cycle; half of the 4.994 ms left after the
  // drops buys 8 cycles.
  const BudgetOptions options{.cpu_share = 0.005, .link_operation_ns = 50'000};
  const ProbeBudgetPlan plan = PlanProbeBudget(Flood(), 0.3, options);
  ASSERT_EQ(plan.slots_per_period, 8);
  EXPECT_NEAR(plan.share, (5e6 - 6e3 - 8 * 0.3e6) / 176e6, 1e-5);
  EXPECT_NEAR(plan.planned_ns_per_s, 5e6, 2e3);
  // The two groups take turns, each slot and its tail inside its own sixteenth of the period.
  ASSERT_EQ(plan.slots.size(), 16u);
  const absl::Duration part = options.period / 16;
  for (size_t s = 0; s < plan.slots.size(); ++s) {
    EXPECT_EQ(plan.slots[s].hooks, std::vector<size_t>{s % 2}) << "slot " << s;
    EXPECT_GE(plan.slots[s].start, part * static_cast<int64_t>(s)) << "slot " << s;
    EXPECT_LE(plan.slots[s].start + plan.slot_length + options.exit_tail,
              part * static_cast<int64_t>(s + 1))
        << "slot " << s;
  }
  // At golden-ratio steps of the phase: no two cycles put their slots at the same offset.
  EXPECT_NE(plan.slots[0].start, plan.slots[2].start - 2 * part);
}

TEST(ProbeBudgetPlanTest, AHooksOwnMeasuredLinkCostIsWhatItsSlotsPay) {
  std::vector<HookLoad> loads = Flood();
  loads[0].link_operation_ns = 400'000;  // the softirq pair's links, measured
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, {.cpu_share = 0.005, .max_slots_per_period = 1});
  // 4 of the softirq pair's at 400 us and 2 of napi's at the default 200 us.
  EXPECT_NEAR(plan.share, (5e6 - 1.6e6 - 0.4e6 - 6e3) / 176e6, 1e-5);
  EXPECT_NEAR(plan.hooks[0].cost_ns_per_s, 96e6 * plan.share + 1.6e6, 1e3);
}

TEST(ProbeBudgetPlanTest, OnlyTheHooksThatMustAreSlotted) {
  // napi alone exceeds the budget; the softirq pair, cheap here, keeps its exact figures.
  std::vector<HookLoad> loads = Flood();
  loads[0].events_per_s = 10'000;
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, {.cpu_share = 0.005});
  EXPECT_EQ(ModeOf(plan, "napi"), HookMode::kSlotted);
  EXPECT_EQ(ModeOf(plan, "softirq"), HookMode::kWhole);
}

TEST(ProbeBudgetPlanTest, AHookThatNeedsASlottedOneIsSlottedWithIt) {
  std::vector<HookLoad> loads = Flood();
  loads.push_back({.name = "txshare",
                   .events_per_s = 100,
                   .cost_ns_per_event = 50,
                   .needs = {"softirq", "napi"}});
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, {.cpu_share = 0.005});
  EXPECT_EQ(ModeOf(plan, "txshare"), HookMode::kSlotted);
  // And in the same slots as what it needs.
  ASSERT_EQ(plan.slots.size(), static_cast<size_t>(plan.slots_per_period));
  for (const SlotGroup& slot : plan.slots) {
    EXPECT_EQ(slot.hooks, (std::vector<size_t>{0, 1, 4}));
  }
}

TEST(ProbeBudgetPlanTest, UnmeasuredHooksStayWholeToBeMeasuredAndDetachedOnesStayDetached) {
  std::vector<HookLoad> loads = Flood();
  loads[1].events_per_s.reset();
  loads[3].wanted = false;
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, {.cpu_share = 0.005});
  EXPECT_EQ(ModeOf(plan, "napi"), HookMode::kWhole);
  EXPECT_EQ(ModeOf(plan, "drops"), HookMode::kDetached);
  EXPECT_EQ(ModeOf(plan, "softirq"), HookMode::kSlotted);
}

TEST(ProbeBudgetPlanTest, NoLimitKeepsEverythingWhole) {
  const ProbeBudgetPlan plan = PlanProbeBudget(Flood(), 0.5, {.cpu_share = std::nullopt});
  for (const HookPlan& hook : plan.hooks) EXPECT_EQ(hook.mode, HookMode::kWhole) << hook.name;
  EXPECT_GT(plan.planned_ns_per_s, 0.17e9);
}

TEST(ProbeBudgetPlanTest, ABudgetTooSmallForOneSlotAPeriodSpreadsTheSlotsOverPeriods) {
  // One 1 ms slot a period of softirq and napi costs about 2.5 ms of CPU a second here, five
  // times this budget: a slot every 5 periods or so keeps the average within it.
  const ProbeBudgetPlan plan = PlanProbeBudget(Flood(), 0.5, {.cpu_share = 0.0005});
  EXPECT_FALSE(plan.over_budget);
  EXPECT_GT(plan.periods_per_slot, 1);
  EXPECT_EQ(plan.slot_length, absl::Milliseconds(1));
  EXPECT_EQ(ModeOf(plan, "softirq"), HookMode::kSlotted);
  EXPECT_LE(plan.planned_ns_per_s, 0.0005e9 * (1 + 1e-9));
  EXPECT_NEAR(plan.share, 0.001 / plan.periods_per_slot, 1e-12);
}

TEST(ProbeBudgetPlanTest, ABudgetTooSmallEvenForASlotEveryThirtyPeriodsSaysSo) {
  const ProbeBudgetPlan plan = PlanProbeBudget(Flood(), 0.5, {.cpu_share = 0.000001});
  EXPECT_TRUE(plan.over_budget);
  EXPECT_EQ(plan.periods_per_slot, kMaxPeriodsPerSlot);
  EXPECT_GT(plan.planned_ns_per_s, 0.000001e9);
}

TEST(ProbeBudgetPlanTest, ThePhasePlacesEachSlotAndItsTailInsideItsPartOfThePeriod) {
  const BudgetOptions options{.cpu_share = 0.005, .max_slots_per_period = 1};
  const ProbeBudgetPlan early = PlanProbeBudget(Flood(), 0.0, options);
  const ProbeBudgetPlan late = PlanProbeBudget(Flood(), 0.999999, options);
  ASSERT_EQ(early.slots.size(), 2u);
  ASSERT_EQ(late.slots.size(), 2u);
  EXPECT_EQ(early.slots[0].start, absl::ZeroDuration());
  EXPECT_EQ(early.slots[1].start, options.period / 2);
  EXPECT_LE(late.slots[0].start + late.slot_length + options.exit_tail, options.period / 2);
  EXPECT_GT(late.slots[0].start, options.period / 4);
  EXPECT_LE(late.slots[1].start + late.slot_length + options.exit_tail, options.period);
}

TEST(ProbeBudgetPlanTest, AnyLoadGetsSlotsApartInsideThePeriodAndAPlanWithinTheBudget) {
  std::mt19937 random(20261201);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<HookLoad> loads;
    const int hooks = 2 + static_cast<int>(unit(random) * 7);
    for (int h = 0; h < hooks; ++h) {
      loads.push_back({.name = absl::StrCat("hook", h),
                       .wanted = unit(random) > 0.1,
                       .events_per_s = 1e6 * unit(random) * unit(random),
                       .cost_ns_per_event = 50 + 400 * unit(random),
                       .link_operations = unit(random) > 0.5 ? 4 : 2,
                       .link_operation_ns = 1e5 + 8e6 * unit(random) * unit(random),
                       .gate_ns_per_event = unit(random) > 0.5 ? 150 + 100 * unit(random) : 0});
      if (h > 0 && unit(random) > 0.7) loads.back().needs = {absl::StrCat("hook", h - 1)};
    }
    const BudgetOptions options{.cpu_share = 0.001 + 0.05 * unit(random)};
    const ProbeBudgetPlan plan = PlanProbeBudget(loads, unit(random), options);
    absl::Duration end = absl::ZeroDuration();
    for (const SlotGroup& slot : plan.slots) {
      EXPECT_GE(slot.start, end) << "trial " << trial;
      end = slot.start + plan.slot_length + options.exit_tail;
    }
    EXPECT_LE(end, options.period) << "trial " << trial;
    if (!plan.over_budget) {
      EXPECT_LE(plan.planned_ns_per_s, *options.cpu_share * 1e9 * (1 + 1e-9)) << "trial " << trial;
    }
    for (size_t i = 0; i < loads.size(); ++i) {
      if (!loads[i].wanted) {
        EXPECT_EQ(plan.hooks[i].mode, HookMode::kDetached);
      }
      if (plan.hooks[i].mode == HookMode::kGated) {
        EXPECT_GT(loads[i].gate_ns_per_event, 0) << "trial " << trial;
      }
    }
  }
}

// About 10,000 drops a second into a socket that is full: the drop hooks see every one. Link
// operations cost this host 3 ms of CPU each.
std::vector<HookLoad> DropsWhileLinksAreDear() {
  return {{.name = "softirq",
           .events_per_s = 1'000,
           .cost_ns_per_event = 250,
           .link_operations = 4,
           .link_operation_ns = 3e6},
          {.name = "napi",
           .events_per_s = 1'000,
           .cost_ns_per_event = 200,
           .link_operation_ns = 3e6,
           .gate_ns_per_event = 190},
          {.name = "drops",
           .events_per_s = 10'000,
           .cost_ns_per_event = 470,
           .link_operation_ns = 3e6,
           .gate_ns_per_event = 190},
          {.name = "udp_fail",
           .events_per_s = 10'000,
           .cost_ns_per_event = 240,
           .link_operation_ns = 3e6,
           .gate_ns_per_event = 190}};
}

TEST(ProbeBudgetPlanTest, AHookWithAGateIsGatedWhenItsGateCostsLessThanItsSlotsLinks) {
  const BudgetOptions options{.cpu_share = 0.005};  // 0.5% of a CPU
  const std::vector<HookLoad> loads = DropsWhileLinksAreDear();
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, options);
  // Whole, the four cost 7.55 ms a second. One slot's links would cost drops 6 ms a second; its
  // gate, closed, costs 1.9 ms.
  EXPECT_EQ(ModeOf(plan, "drops"), HookMode::kGated);
  EXPECT_EQ(ModeOf(plan, "softirq"), HookMode::kWhole);
  EXPECT_EQ(ModeOf(plan, "napi"), HookMode::kWhole);
  EXPECT_FALSE(plan.over_budget);
  EXPECT_LE(plan.planned_ns_per_s, 5e6 * (1 + 1e-9));
  // Its cost is the gate's and the share of its events it measures; no link operations, so the
  // slots a period are as many as fit (each at least min_slot).
  const HookPlan& drops = plan.hooks[2];
  EXPECT_NEAR(drops.cost_ns_per_s, 10'000 * 470 * plan.share + 10'000 * 190, 1);
  EXPECT_EQ(plan.slots_per_period, options.max_slots_per_period);
  EXPECT_GT(plan.share, 0.05);
  EXPECT_EQ(plan.periods_per_slot, 1);
}

TEST(ProbeBudgetPlanTest, AGateDearerThanTheBudgetLeavesGivesWayToLinksSpreadOverPeriods) {
  // 25,000 drops a second: the closed gate costs 4.75 ms a second, one slot's links 6 ms. With
  // a hook that stays whole at 0.5 ms, the gate alone leaves the 5 ms budget no room in any
  // period; links, whose cost spreads over the periods a slot spans, fit.
  const std::vector<HookLoad> loads = {
      {.name = "irq", .never_slotted = true, .events_per_s = 1'000, .cost_ns_per_event = 500},
      {.name = "drops",
       .events_per_s = 25'000,
       .cost_ns_per_event = 470,
       .link_operation_ns = 3e6,
       .gate_ns_per_event = 190}};
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, {.cpu_share = 0.005});
  EXPECT_EQ(ModeOf(plan, "drops"), HookMode::kSlotted);
  EXPECT_FALSE(plan.over_budget);
  EXPECT_GT(plan.periods_per_slot, 1);
  EXPECT_LE(plan.planned_ns_per_s, 5e6 * (1 + 1e-9));
}

TEST(ProbeBudgetPlanTest, AGateThatCostsAnEventAsMuchAsTheProgramIsNeverTaken) {
  std::vector<HookLoad> loads = DropsWhileLinksAreDear();
  for (HookLoad& hook : loads) hook.gate_ns_per_event = hook.cost_ns_per_event;
  const ProbeBudgetPlan plan = PlanProbeBudget(loads, 0.5, {.cpu_share = 0.005});
  for (const HookPlan& hook : plan.hooks) EXPECT_NE(hook.mode, HookMode::kGated) << hook.name;
}

TEST(ProbeBudgetPlanTest, AHookWhoseGateCostsMoreThanItsLinksIsSlottedByItsLinks) {
  // At 800,000 events a second a closed gate costs 152 ms a second; one slot's links 0.4 ms.
  std::vector<HookLoad> flood = Flood();
  for (HookLoad& hook : flood) hook.gate_ns_per_event = 190;
  const ProbeBudgetPlan plan = PlanProbeBudget(flood, 0.5, {.cpu_share = 0.005});
  EXPECT_EQ(ModeOf(plan, "napi"), HookMode::kSlotted);
  EXPECT_EQ(ModeOf(plan, "softirq"), HookMode::kSlotted);
  EXPECT_LE(plan.planned_ns_per_s, 5e6 * (1 + 1e-9));
}

}  // namespace
}  // namespace nictune::driver::bpf
