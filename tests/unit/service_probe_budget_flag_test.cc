// SPDX-License-Identifier: Apache-2.0
// --probe_budget: a share of one CPU as a fraction or a percentage, or "unlimited"; anything else
// is refused naming the flag.
#include "agent/service/probe_budget_flag.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::service {
namespace {

TEST(ProbeBudgetFlagTest, TakesAShareAPercentageOrUnlimited) {
  EXPECT_EQ(*ParseProbeBudget("0.005"), std::optional<double>(0.005));
  EXPECT_EQ(*ParseProbeBudget("0.5%"), std::optional<double>(0.005));
  EXPECT_EQ(*ParseProbeBudget("100%"), std::optional<double>(1.0));
  EXPECT_EQ(*ParseProbeBudget("unlimited"), std::nullopt);
  EXPECT_EQ(DescribeProbeBudget(0.005), "0.5% of one CPU");
  EXPECT_EQ(DescribeProbeBudget(std::nullopt), "unlimited");
}

TEST(ProbeBudgetFlagTest, TheFlagsTextParsesBackToTheShare) {
  EXPECT_EQ(ProbeBudgetFlagText(0.004), "0.4%");
  for (double share : {0.004, 0.0035, 0.005, 1.0}) {
    absl::StatusOr<std::optional<double>> parsed = ParseProbeBudget(ProbeBudgetFlagText(share));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_DOUBLE_EQ(parsed->value(), share);
  }
}

TEST(ProbeBudgetFlagTest, RefusesWhatIsNotABudget) {
  for (const char* bad : {"", "0", "-1%", "101%", "2", "nan", "inf", "half", "0.5 %%", "none"}) {
    absl::StatusOr<std::optional<double>> parsed = ParseProbeBudget(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.status().message(), ::testing::HasSubstr("--probe_budget")) << bad;
  }
}

}  // namespace
}  // namespace nictune::service
