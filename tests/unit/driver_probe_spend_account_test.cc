// SPDX-License-Identifier: Apache-2.0
// The probes' spend account: overspending lowers the next plans' share until it is repaid, a
// quiet spell banks no more than one period, a debt no more than brings the share to its floor,
// and the share never falls under that floor.
#include "absl/time/time.h"
#include "driver/bpf/probe_spend_account.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

constexpr double kBudget = 0.005;  // 5 ms of CPU a second
const absl::Duration kPeriod = absl::Seconds(1);

TEST(ProbeSpendAccount, SpendingTheBudgetLeavesTheWholeBudgetToPlan) {
  ProbeSpendAccount account(kBudget, kPeriod);
  for (int i = 0; i < 10; ++i) account.Record(5e6, kPeriod);
  EXPECT_DOUBLE_EQ(account.PlanningShare(), kBudget);
  EXPECT_EQ(account.debt_ns(), 0);
}

TEST(ProbeSpendAccount, AnOverspentPeriodIsRepaidOverTheNextPlans) {
  ProbeSpendAccount account(kBudget, kPeriod);
  account.Record(9e6, kPeriod);  // 4 ms over
  EXPECT_DOUBLE_EQ(account.debt_ns(), 4e6);
  // 4 ms over four periods: 1 ms a period less.
  EXPECT_NEAR(account.PlanningShare(), 0.004, 1e-12);
  account.Record(4e6, kPeriod);  // spent what it was given: 1 ms repaid
  EXPECT_DOUBLE_EQ(account.debt_ns(), 3e6);
  EXPECT_NEAR(account.PlanningShare(), 0.00425, 1e-12);
}

// Plans that always spend `factor` times their planning share, for `periods` periods: the mean
// spend a period over the last ten.
double SpendOfPlansOverspendingBy(ProbeSpendAccount& account, double factor, int periods) {
  double spent_over_last_ten = 0;
  for (int i = 0; i < periods; ++i) {
    const double spent_ns = factor * account.PlanningShare() * 1e9;
    if (i >= periods - 10) spent_over_last_ten += spent_ns;
    account.Record(spent_ns, kPeriod);
  }
  return spent_over_last_ten / 10;
}

// Plans that spend half again what they estimate (link operations dearer than their average):
// the spend settles at the budget.
TEST(ProbeSpendAccount, PlansThatAlwaysOverspendByHalfSettleAtTheBudget) {
  ProbeSpendAccount account(kBudget, kPeriod);
  EXPECT_NEAR(SpendOfPlansOverspendingBy(account, 1.5, 60), 5e6, 0.01 * 5e6);
}

// Twice what they estimate: the share settles at its floor, and the spend still at the budget.
TEST(ProbeSpendAccount, PlansThatAlwaysOverspendTwofoldSettleAtTheFloorAndTheBudget) {
  ProbeSpendAccount account(kBudget, kPeriod);
  EXPECT_NEAR(SpendOfPlansOverspendingBy(account, 2, 80), 5e6, 0.01 * 5e6);
  EXPECT_NEAR(account.PlanningShare(), ProbeSpendAccount::kLeastShareOfBudget * kBudget, 1e-6);
}

// A plan spanning eight periods repays an eighth of the debt a period, not a quarter: over its
// eight periods that is the whole debt, not twice it.
TEST(ProbeSpendAccount, APlanSpanningManyPeriodsRepaysNoMoreThanItOwes) {
  ProbeSpendAccount account(kBudget, kPeriod);
  account.Record(9e6, kPeriod);  // 4 ms owed
  EXPECT_NEAR(account.PlanningShare(8), 0.0045, 1e-12);
  EXPECT_NEAR(account.PlanningShare(2), 0.004, 1e-12);
}

// Spend the plans cannot cut (a hook never slotted) leaves no more debt than brings the share to
// its floor: once it stops, the share is back within a few periods.
TEST(ProbeSpendAccount, AnOverspendTheyCouldNotCutIsNotOwedLongAfterItStops) {
  ProbeSpendAccount account(kBudget, kPeriod);
  for (int i = 0; i < 600; ++i) account.Record(15e6, kPeriod);  // ten minutes at three budgets
  // The floor: a quarter of the debt a period takes half the budget.
  EXPECT_NEAR(account.debt_ns(), 4 * 0.5 * 5e6, 1);
  account.Record(0, kPeriod);
  account.Record(0, kPeriod);
  EXPECT_EQ(account.debt_ns(), 0);
  EXPECT_DOUBLE_EQ(account.PlanningShare(), kBudget);
}

TEST(ProbeSpendAccount, AQuietSpellBanksOnePeriodAtMost) {
  ProbeSpendAccount account(kBudget, kPeriod);
  account.Record(0, absl::Seconds(60));
  account.Record(10e6, kPeriod);  // 5 ms over, against one period of credit
  EXPECT_EQ(account.debt_ns(), 0);
  account.Record(10e6, kPeriod);
  EXPECT_DOUBLE_EQ(account.debt_ns(), 5e6);
}

TEST(ProbeSpendAccount, TheShareNeverFallsUnderItsFloor) {
  ProbeSpendAccount account(kBudget, kPeriod);
  account.Record(1e9, kPeriod);
  EXPECT_DOUBLE_EQ(account.PlanningShare(), ProbeSpendAccount::kLeastShareOfBudget * kBudget);
}

}  // namespace
}  // namespace nictune::driver::bpf
