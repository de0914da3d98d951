// SPDX-License-Identifier: Apache-2.0
// The simulated application's scheduling gaps (tuner/sim_gaps.h): one per period at a seeded
// random point, so that over a run the gaps meet the sender's bursts at every phase (a gap at a
// fixed point of a period that is a multiple of the on/off period meets them at one phase only),
// never merge into a longer gap, and repeat exactly for a seed.
#include "tuner/sim_gaps.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_matrix.h"

namespace nictune::tuner {
namespace {

struct Gap {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// The first `count` gaps, read through the same calls the engine makes.
std::vector<Gap> Gaps(const AppConfig& app, uint64_t seed, int count) {
  SimGaps gaps(app, seed);
  std::vector<Gap> out;
  int64_t now = 0;
  while (static_cast<int>(out.size()) < count) {
    gaps.AdvanceTo(now);
    if (out.empty() || out.back().start_ns != gaps.start_ns()) {
      out.push_back({gaps.start_ns(), gaps.end_ns()});
    }
    now = gaps.NextBoundary(now);
  }
  return out;
}

AppConfig MatrixGap() {
  // The matrix's 2 ms gap: once per max(1 ms, 10 gaps) = 20 ms.
  return MatrixScenario({812'744, 1514, 8 << 20, 2000, ArrivalPattern::kOnOff}).app;
}

TEST(SimGapsTest, TheMatrixRunsGapsStartAtEveryPhaseOfTheBurstCycle) {
  const MatrixPoint point{812'744, 1514, 8 << 20, 2000, ArrivalPattern::kOnOff};
  const SimScenario s = MatrixScenario(point);
  const int64_t burst_cycle_ns = s.arrivals.on_ns + s.arrivals.off_ns;  // 2 ms
  ASSERT_EQ(burst_cycle_ns, 2'000'000);
  ASSERT_EQ(s.app.gap_period_ns % burst_cycle_ns, 0) << "the case that locked the phase before";
  const auto gaps_in_run = static_cast<int>(s.duration_ns / s.app.gap_period_ns);
  EXPECT_GE(gaps_in_run, kMatrixGapsPerRun);
  // Eight 250 us phases of the 2 ms cycle: the run's gaps start in every one of them, for the
  // matrix's seed and nine others (a gap at the end of each 20 ms period started at 18 ms, phase
  // 0, every time).
  constexpr int kPhases = 8;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::set<int64_t> phases;
    for (const Gap& gap : Gaps(s.app, seed, gaps_in_run)) {
      phases.insert((gap.start_ns % burst_cycle_ns) * kPhases / burst_cycle_ns);
    }
    EXPECT_EQ(phases.size(), static_cast<size_t>(kPhases))
        << "seed " << seed << ": " << ::testing::PrintToString(phases);
  }
  EXPECT_EQ(s.seed, 1u);
}

TEST(SimGapsTest, StartsAreUniformOverThePeriodLessTwoGaps) {
  const AppConfig app = MatrixGap();
  const int64_t latest_start = app.gap_period_ns - 2 * app.gap_ns;  // 16 ms
  constexpr int kGaps = 2000;
  constexpr int kBins = 10;
  std::vector<int> counts(kBins, 0);
  int64_t lowest = app.gap_period_ns;
  int64_t highest = 0;
  const std::vector<Gap> gaps = Gaps(app, 7, kGaps);
  for (size_t k = 0; k < gaps.size(); ++k) {
    const int64_t offset = gaps[k].start_ns - static_cast<int64_t>(k) * app.gap_period_ns;
    ASSERT_GE(offset, 0) << "gap " << k;
    ASSERT_LE(offset, latest_start) << "gap " << k;
    lowest = std::min(lowest, offset);
    highest = std::max(highest, offset);
    ++counts[static_cast<size_t>(offset * kBins / (latest_start + 1))];
  }
  // 200 expected per bin; binomial sd 13.4: +-60 is 4.5 sd.
  EXPECT_THAT(counts, ::testing::Each(::testing::AllOf(::testing::Ge(140), ::testing::Le(260))))
      << ::testing::PrintToString(counts);
  EXPECT_LT(lowest, latest_start / 100);
  EXPECT_GT(highest, latest_start * 99 / 100);
}

TEST(SimGapsTest, OneGapPerPeriodNeverMergedWithTheNext) {
  const AppConfig app = MatrixGap();
  const std::vector<Gap> gaps = Gaps(app, 3, 500);
  for (size_t k = 0; k < gaps.size(); ++k) {
    const auto period_start = static_cast<int64_t>(k) * app.gap_period_ns;
    EXPECT_EQ(gaps[k].end_ns - gaps[k].start_ns, app.gap_ns);
    EXPECT_GE(gaps[k].start_ns, period_start);
    EXPECT_LE(gaps[k].end_ns, period_start + app.gap_period_ns);
    // The reader runs at least one gap's length between two gaps: the longest time off CPU is
    // gap_ns, as the tuner is told.
    if (k > 0) {
      EXPECT_GE(gaps[k].start_ns - gaps[k - 1].end_ns, app.gap_ns) << "gap " << k;
    }
  }
}

TEST(SimGapsTest, AGapAsLongAsItsPeriodKeepsTheReaderOff) {
  const AppConfig app{.gap_ns = 1'000'000, .gap_period_ns = 1'000'000};
  SimGaps gaps(app, 1);
  for (int64_t now : {int64_t{0}, int64_t{999'999}, int64_t{1'000'000}, int64_t{5'500'000}}) {
    gaps.AdvanceTo(now);
    EXPECT_TRUE(gaps.InGap(now)) << now;
  }
}

TEST(SimGapsTest, NoGapsWithoutAPeriodOrALength) {
  for (const AppConfig& app : {AppConfig{.gap_ns = 0, .gap_period_ns = 1'000'000},
                               AppConfig{.gap_ns = 0, .gap_period_ns = 0}}) {
    SimGaps gaps(app, 1);
    gaps.AdvanceTo(500'000);
    EXPECT_FALSE(gaps.InGap(500'000));
    EXPECT_EQ(gaps.NextBoundary(500'000), INT64_MAX);
  }
}

TEST(SimGapsTest, TheSameSeedGivesTheSameGapsAnotherSeedOthers) {
  const AppConfig app = MatrixGap();
  const std::vector<Gap> a = Gaps(app, 11, 50);
  const std::vector<Gap> b = Gaps(app, 11, 50);
  const std::vector<Gap> c = Gaps(app, 12, 50);
  int same_as_c = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].start_ns, b[k].start_ns) << "gap " << k;
    if (a[k].start_ns == c[k].start_ns) ++same_as_c;
  }
  EXPECT_EQ(same_as_c, 0);
}

// A reader on its own CPU that reads for free holds exactly what arrives while it is off CPU:
// the engine follows the gaps. Over a 1 ms on / 1 ms off sender every 2 ms gap overlaps 1 ms of
// bursts whatever its phase, so the most the socket holds is one burst (1625 packets at
// 1.625 Mpps), never the 3250 a gap inside a 2 ms burst would bring.
TEST(SimGapsTest, AGapHoldsWhatArrivesWhileItLasts) {
  SimScenario s;
  s.arrivals = {.pattern = ArrivalPattern::kOnOff,
                .rate_pps = 812'744,
                .on_ns = 1'000'000,
                .off_ns = 1'000'000};
  s.frame.truesize_bytes = 1000;
  s.ring_size = 4096;
  s.moderation.fixed.rx_usecs = 0;  // every packet reaches the socket as it arrives
  s.rcvbuf_bytes = 64 << 20;
  s.app = {.placement = AppPlacement::kOwnCpu, .gap_ns = 2'000'000, .gap_period_ns = 20'000'000};
  s.duration_ns = 32 * s.app.gap_period_ns;
  for (uint64_t seed : {uint64_t{1}, uint64_t{2}, uint64_t{3}}) {
    s.seed = seed;
    absl::StatusOr<SimResult> r = Simulate(s);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->socket_drops, 0u);
    const int64_t held = r->peak_socket_bytes / 1000;
    EXPECT_GE(held, 1625) << "seed " << seed;
    EXPECT_LE(held, 1626) << "seed " << seed;
  }
  // Constant arrivals at the same peak rate fill the whole gap: 2 ms * 1.625 Mpps.
  s.arrivals = {.pattern = ArrivalPattern::kConstant, .rate_pps = 1'625'488};
  absl::StatusOr<SimResult> constant = Simulate(s);
  ASSERT_TRUE(constant.ok()) << constant.status();
  EXPECT_NEAR(static_cast<double>(constant->peak_socket_bytes / 1000), 3251, 1);
}

// The engine's reader is off exactly when SimGaps says: a run that ends 1 ms into the second gap
// ends with 1 ms of arrivals in the socket; one that ends 1 ms after that gap, with none.
TEST(SimGapsTest, TheEngineFollowsTheSeededGaps) {
  SimScenario s;
  s.arrivals.rate_pps = 1'000'000;
  s.frame.truesize_bytes = 1000;
  s.ring_size = 4096;
  s.moderation.fixed.rx_usecs = 0;
  s.rcvbuf_bytes = 64 << 20;
  s.app = {.placement = AppPlacement::kOwnCpu, .gap_ns = 2'000'000, .gap_period_ns = 20'000'000};
  for (uint64_t seed : {uint64_t{4}, uint64_t{5}, uint64_t{6}}) {
    s.seed = seed;
    const Gap second = Gaps(s.app, seed, 2).back();
    s.duration_ns = second.start_ns + 1'000'000;
    absl::StatusOr<SimResult> inside = Simulate(s);
    ASSERT_TRUE(inside.ok()) << inside.status();
    EXPECT_NEAR(static_cast<double>(inside->in_socket_at_end), 1000, 1) << "seed " << seed;
    s.duration_ns = second.end_ns + 1'000'000;
    absl::StatusOr<SimResult> after = Simulate(s);
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_EQ(after->in_socket_at_end, 0u) << "seed " << seed;
  }
}

}  // namespace
}  // namespace nictune::tuner
