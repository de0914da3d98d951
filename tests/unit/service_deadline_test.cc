// SPDX-License-Identifier: Apache-2.0
// The sampling loop's deadline arithmetic: absolute deadlines, and deadlines a slow step passed
// are skipped and counted rather than bunched up.
#include "agent/service/deadline_wait.h"
#include "gtest/gtest.h"

namespace nictune::service {
namespace {

timespec At(int64_t sec, int64_t nsec) { return {.tv_sec = sec, .tv_nsec = nsec}; }

TEST(AdvanceDeadlineTest, OnTimeMovesOneIntervalAndMissesNothing) {
  timespec deadline = At(100, 900'000'000);
  EXPECT_EQ(AdvanceDeadline(deadline, At(100, 950'000'000), absl::Milliseconds(200)), 0u);
  EXPECT_EQ(deadline.tv_sec, 101);
  EXPECT_EQ(deadline.tv_nsec, 100'000'000);
}

TEST(AdvanceDeadlineTest, ExactlyAtTheNextDeadlineIsNotMissed) {
  timespec deadline = At(10, 0);
  EXPECT_EQ(AdvanceDeadline(deadline, At(11, 0), absl::Seconds(1)), 0u);
  EXPECT_EQ(deadline.tv_sec, 11);
}

TEST(AdvanceDeadlineTest, ASlowStepSkipsAndCountsThePassedDeadlines) {
  timespec deadline = At(10, 0);
  // The step ended at 12.5 s: the deadlines at 11 s and 12 s passed; the next is 13 s.
  EXPECT_EQ(AdvanceDeadline(deadline, At(12, 500'000'000), absl::Seconds(1)), 2u);
  EXPECT_EQ(deadline.tv_sec, 13);
  EXPECT_EQ(deadline.tv_nsec, 0);
}

TEST(DeadlineWaitTest, WaitsUntilTheDeadlineWhenNoSignalComes) {
  const sigset_t signals = BlockServiceSignals();
  const timespec start = MonotonicNow();
  const timespec deadline = AddDuration(start, absl::Milliseconds(30));
  EXPECT_FALSE(WaitUntil(signals, deadline).has_value());
  EXPECT_FALSE(Before(MonotonicNow(), deadline));
}

TEST(DeadlineWaitTest, ABlockedSignalEndsTheWaitAndIsReturned) {
  const sigset_t signals = BlockServiceSignals();
  ASSERT_EQ(raise(SIGHUP), 0);  // blocked: it stays pending for sigtimedwait
  const timespec deadline = AddDuration(MonotonicNow(), absl::Seconds(5));
  const std::optional<int> sig = WaitUntil(signals, deadline);
  ASSERT_TRUE(sig.has_value());
  EXPECT_EQ(*sig, SIGHUP);
  EXPECT_TRUE(Before(MonotonicNow(), deadline));
}

}  // namespace
}  // namespace nictune::service
