// SPDX-License-Identifier: Apache-2.0
// The softirq timing sampler that softirq.bpf.c runs inline (driver/bpf/softirq_sampler.h): the
// same code, compiled here for the host.
#include <cstdint>
#include <vector>

#include "driver/bpf/softirq_sampler.h"
#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

TEST(SoftirqSamplerTest, XorshiftIsMarsagliasSequence) {
  // Marsaglia, "Xorshift RNGs" (2003), shifts 13, 17, 5 from the state 1.
  __u32 state = 1;
  state = nictune_xorshift32(state);
  EXPECT_EQ(state, 270369u);
  state = nictune_xorshift32(state);
  EXPECT_EQ(state, 67634689u);
}

TEST(SoftirqSamplerTest, AShiftTimesOneSoftirqInTwoToTheShift) {
  EXPECT_TRUE(nictune_softirq_timed(0xFFFFFFFFu, 0));  // shift 0: every draw
  EXPECT_TRUE(nictune_softirq_timed(0x1FFFFFFFu, 3));  // top 3 bits clear
  EXPECT_FALSE(nictune_softirq_timed(0x20000000u, 3));
  for (__u32 shift : {1u, 3u, 6u}) {
    __u32 state = 0x9E3779B9u;
    constexpr int kDraws = 1 << 20;
    int timed = 0;
    for (int i = 0; i < kDraws; ++i) {
      state = nictune_xorshift32(state);
      ASSERT_NE(state, 0u);
      timed += nictune_softirq_timed(state, shift);
    }
    const double expected = static_cast<double>(kDraws >> shift);
    EXPECT_NEAR(timed, expected, 0.02 * expected) << "shift " << shift;
  }
}

// A modulo counter at one in 8 times only softirqs at one phase of any period that divides 8:
// with NET_RX and NET_TX alternating it would time only one of them. The pseudo-random choice
// times every phase of every period at the same rate.
TEST(SoftirqSamplerTest, ThePseudoRandomChoiceDoesNotLockOntoPeriodicPatterns) {
  constexpr __u32 kShift = 3;
  constexpr int kDraws = 1 << 22;
  for (int period : {2, 3, 4, 8, 16, 64}) {
    std::vector<int> timed_at_phase(static_cast<size_t>(period), 0);
    __u32 state = 12345;
    for (int i = 0; i < kDraws; ++i) {
      state = nictune_xorshift32(state);
      if (nictune_softirq_timed(state, kShift)) ++timed_at_phase[static_cast<size_t>(i % period)];
    }
    const double expected = static_cast<double>(kDraws) / period / 8;
    for (int phase = 0; phase < period; ++phase) {
      EXPECT_NEAR(timed_at_phase[static_cast<size_t>(phase)], expected, 0.05 * expected)
          << "period " << period << " phase " << phase;
    }
  }
}

TEST(SoftirqSamplerTest, EveryOtherSoftirqLongIsEstimatedWithoutBias) {
  // Softirqs of 1 us and 9 us alternating (mean 5 us), one in 8 timed.
  __u32 state = 777;
  uint64_t timed = 0;
  uint64_t timed_ns = 0;
  for (int i = 0; i < (1 << 20); ++i) {
    state = nictune_xorshift32(state);
    if (!nictune_softirq_timed(state, 3)) continue;
    ++timed;
    timed_ns += i % 2 == 0 ? 1000 : 9000;
  }
  EXPECT_NEAR(static_cast<double>(timed_ns) / static_cast<double>(timed), 5000.0, 50.0);
}

TEST(SoftirqSamplerTest, TheShiftFollowsTheRateUpToItsLimit) {
  constexpr __u64 kWindow = 100'000'000;  // 0.1 s
  constexpr __u64 kNsPerTimed = 100'000;  // 10000 timed per second: 1000 per window
  EXPECT_EQ(nictune_softirq_next_shift(1000, kWindow, kNsPerTimed, 3), 0u);  // 10k/s: all
  EXPECT_EQ(nictune_softirq_next_shift(1001, kWindow, kNsPerTimed, 3), 1u);
  EXPECT_EQ(nictune_softirq_next_shift(2001, kWindow, kNsPerTimed, 3), 1u);  // 1000 after >> 1
  EXPECT_EQ(nictune_softirq_next_shift(2002, kWindow, kNsPerTimed, 3), 2u);
  EXPECT_EQ(nictune_softirq_next_shift(4004, kWindow, kNsPerTimed, 3), 3u);
  EXPECT_EQ(nictune_softirq_next_shift(50'000, kWindow, kNsPerTimed, 3), 3u);  // 500k/s: capped
  EXPECT_EQ(nictune_softirq_next_shift(50'000, kWindow, kNsPerTimed, 8), 6u);  // 50000 >> 6 = 781
  EXPECT_EQ(nictune_softirq_next_shift(1'000'000, kWindow, kNsPerTimed, 99), 10u);  // the limit
  EXPECT_EQ(nictune_softirq_next_shift(50'000, kWindow, kNsPerTimed, 0), 0u);       // sampling off
  // A CPU back from an hour without softirqs: the rate is over the whole gap.
  EXPECT_EQ(nictune_softirq_next_shift(5, 3'600'000'000'000, kNsPerTimed, 3), 0u);
  EXPECT_EQ(nictune_softirq_next_shift(50'000, kWindow, 0, 3), 0u);
}

}  // namespace
}  // namespace nictune::driver::bpf
