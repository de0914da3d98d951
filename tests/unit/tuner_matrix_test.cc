// The scenario matrix in small: for each scenario the tuner's recommendation (Recommend() on what
// the agent would observe, replayed in the simulator with the buffer it grows) must either run
// drop-free or come with the tuner's own reason why no setting can (Recommendation::unresolved).
// A scenario where the tuner claims drop-free and the simulator drops fails the test. The full
// matrix is tests/bench/sim_bench.cc (--benchmark_filter=Matrix).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/fill_math.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_replay.h"
#include "tuner/sim_whatif.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kRxUsecsMax = 1000;
constexpr CostModel kCosts = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 100};

struct Point {
  double rate_pps;
  int64_t frame_bytes;
  int64_t rcvbuf_bytes;
  int64_t drain_gap_us;
  ArrivalPattern pattern;
};

std::string Name(const Point& p) {
  return absl::StrFormat("%.0fpps %dB rcvbuf %d gap %dus %s", p.rate_pps, p.frame_bytes,
                         p.rcvbuf_bytes, p.drain_gap_us,
                         p.pattern == ArrivalPattern::kConstant ? "constant" : "bursty");
}

// The matrix's scenario: the what-if's reader that drains only between interrupts (it shares the
// softirq's CPU), its drain gap once per max(1 ms, 10 gaps), 1 ms on / 1 ms off bursts, a
// 1024-descriptor ring and the costs above; long enough for three gap periods.
SimScenario Scenario(const Point& p, CostModel cost = kCosts) {
  FrameConfig frame;
  frame.frame_bytes = p.frame_bytes;
  WhatIfInput in;
  in.rate_pps = p.rate_pps;
  in.truesize_bytes = TruesizeBytes(frame);
  in.rcvbuf_bytes = p.rcvbuf_bytes;
  in.drain_gap_us = p.drain_gap_us;
  in.duration_us = std::max<int64_t>(40'000, 3 * std::max<int64_t>(1000, 10 * p.drain_gap_us));
  in.ring_size = 1024;
  in.cost = cost;
  in.pattern = p.pattern;
  SimScenario s = WhatIfScenario(in);
  s.frame.frame_bytes = p.frame_bytes;
  return s;
}

TEST(TunerMatrixTest, EveryScenarioIsDropFreeOrTheTunerSaysWhyNot) {
  std::vector<Point> points;
  for (double rate : {100'000.0, 812'744.0, 2'000'000.0}) {
    for (int64_t frame : {1514, 9000}) {
      for (int64_t rcvbuf : {65536, 212992}) {
        for (int64_t gap : {0, 2000}) {
          for (ArrivalPattern pattern : {ArrivalPattern::kConstant, ArrivalPattern::kOnOff}) {
            points.push_back({rate, frame, rcvbuf, gap, pattern});
          }
        }
      }
    }
  }
  int drop_free = 0;
  int explained = 0;
  int grown = 0;
  std::vector<std::string> said_unresolved;
  std::vector<std::string> false_claims;
  for (const Point& p : points) {
    absl::StatusOr<TunerReplay> r = ReplayTuner(Scenario(p), PolicyConfig{}, kRxUsecsMax);
    ASSERT_TRUE(r.ok()) << Name(p) << ": " << r.status();
    ASSERT_GT(r->replay.packets_arrived, 3000u) << Name(p);
    if (r->buffer_grown) ++grown;
    if (!r->unresolved.empty()) {
      said_unresolved.push_back(
          absl::StrFormat("%s (drops %u): %s", Name(p), r->drops(), r->unresolved));
    }
    if (r->drops() == 0) {
      ++drop_free;
    } else if (!r->unresolved.empty()) {
      ++explained;
    } else {
      false_claims.push_back(absl::StrFormat(
          "%s: rx-usecs %d rcvbuf %d claimed drop-free, simulator dropped %u ring + %u socket",
          Name(p), r->rx_usecs, r->rcvbuf_bytes, r->replay.ring_drops, r->replay.socket_drops));
    }
  }
  EXPECT_THAT(false_claims, ::testing::IsEmpty());
  EXPECT_EQ(drop_free + explained + static_cast<int>(false_claims.size()),
            static_cast<int>(points.size()));
  // Not vacuous: most scenarios are made drop-free, many only by a bigger buffer (a 2 ms gap at
  // these rates needs far more than 208 KiB). 9000-byte frames at 2 Mpps in 1 ms bursts behind a
  // 2 ms gap would need more than the 64 MiB cap if the gap fell inside a burst; the tuner says
  // so, though in this run the gaps fall where half of them is silence and nothing drops.
  EXPECT_GE(drop_free, 40) << "explained " << explained;
  EXPECT_GE(grown, 10);
  EXPECT_THAT(said_unresolved, ::testing::Contains(HasSubstr("above the rmem cap")));
  EXPECT_LE(said_unresolved.size(), 4u) << ::testing::PrintToString(said_unresolved);
}

// What the matrix catches: for bursts the plain fill math on the mean rate (seed 001's socket)
// overflows; the tuner, planning at the peak rate with the cycle's stretch, does not.
TEST(TunerMatrixTest, BurstsNeedThePeakRateNotTheMean) {
  const Point p{812'744, 1514, 212992, 0, ArrivalPattern::kOnOff};
  const SimScenario s = Scenario(p);
  absl::StatusOr<FillResult> fill =
      ComputeFill({.rate_pps = p.rate_pps,
                   .truesize_bytes = static_cast<double>(TruesizeBytes(s.frame)),
                   .rcvbuf_bytes = static_cast<double>(p.rcvbuf_bytes),
                   .margin = 0.1});
  ASSERT_TRUE(fill.ok()) << fill.status();
  SimScenario at_mean = s;
  at_mean.moderation.fixed.rx_usecs = static_cast<int64_t>(fill->max_interval_s * 1e6);
  absl::StatusOr<SimResult> mean_run = Simulate(at_mean);
  ASSERT_TRUE(mean_run.ok()) << mean_run.status();
  EXPECT_GT(mean_run->socket_drops, 1000u) << "rx-usecs " << at_mean.moderation.fixed.rx_usecs;

  absl::StatusOr<TunerReplay> r = ReplayTuner(s, PolicyConfig{}, kRxUsecsMax);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(r->rx_usecs, at_mean.moderation.fixed.rx_usecs / 2 + 5);
  EXPECT_FALSE(r->buffer_grown);
  EXPECT_TRUE(r->unresolved.empty()) << r->unresolved;
  EXPECT_EQ(r->drops(), 0u) << "rx-usecs " << r->rx_usecs;
}

// A softirq that needs more than the CPU at the peak rate: no interval or buffer helps, and the
// tuner says so instead of claiming drop-free.
TEST(TunerMatrixTest, SaturatedCpuIsNamedNotClaimedDropFree) {
  const Point p{2'000'000, 1514, 212992, 0, ArrivalPattern::kOnOff};
  // 4 Mpps at the peak * 300 ns = 1.2 CPUs.
  absl::StatusOr<TunerReplay> r =
      ReplayTuner(Scenario(p, {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 300}),
                  PolicyConfig{}, kRxUsecsMax);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->unresolved, HasSubstr("CPU saturated"));
  EXPECT_GT(r->drops(), 0u);
}

}  // namespace
}  // namespace nictune::tuner
