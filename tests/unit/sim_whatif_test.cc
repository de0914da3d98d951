// SPDX-License-Identifier: Apache-2.0
// The what-if entry point the REST API and CLI call, checked against seed 001's numbers and the
// fill math's drain-gap term.
#include "tuner/sim_whatif.h"

#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/fill_math.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;

WhatIfInput Seed001(int64_t rx_usecs) {
  WhatIfInput in;
  in.rate_pps = 812744;
  in.truesize_bytes = 2994;
  in.rcvbuf_bytes = 212992;
  in.rx_usecs = rx_usecs;
  in.duration_us = 200'000;
  return in;
}

TEST(SimWhatIf, Seed001DropFreeAt84DropsAt100) {
  absl::StatusOr<WhatIfResult> ok = SimulateWhatIf(Seed001(84));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->drops_per_s, 0);
  EXPECT_GT(ok->peak_socket_fill, 0.9);
  EXPECT_NEAR(ok->interrupts_per_s, 11'700, 300);

  absl::StatusOr<WhatIfResult> bad = SimulateWhatIf(Seed001(100));
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_GT(bad->socket_drops, 0u);
  EXPECT_GT(bad->drops_per_s, 100'000);  // ~11 of every ~82 packets
}

TEST(SimWhatIf, AGapShorterThanTheIntervalCostsNothingBetweenInterrupts) {
  // A reader that drains between interrupts sees nothing arrive between them: a 40 us gap
  // inside an 85 us cycle leaves it one burst to hold, as without the gap. The fill math's
  // u + drain_gap (87.5 - 40 = 47.5 us here) is conservative by up to one interval.
  WhatIfInput in = Seed001(84);
  in.drain_gap_us = 40;
  absl::StatusOr<WhatIfResult> r = SimulateWhatIf(in);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->socket_drops, 0u);
  EXPECT_LE(r->peak_packets_per_interrupt, 71u);
}

TEST(SimWhatIf, AGapLongerThanTheFillTimeNeedsTheFillMathsBuffer) {
  // 150 us off CPU: no interval keeps 71 packets enough (u_max < 0) ...
  absl::StatusOr<FillResult> fill = ComputeFill({.rate_pps = 812744,
                                                 .truesize_bytes = 2994,
                                                 .rcvbuf_bytes = 212992,
                                                 .drain_gap_s = 150e-6,
                                                 .margin = 0});
  ASSERT_TRUE(fill.ok()) << fill.status();
  ASSERT_LT(fill->max_interval_s, 0);
  WhatIfInput in = Seed001(10);
  in.drain_gap_us = 150;
  for (int64_t usecs : {10, 40, 84}) {
    in.rx_usecs = usecs;
    absl::StatusOr<WhatIfResult> r = SimulateWhatIf(in);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_GT(r->socket_drops, 0u) << "rx_usecs " << usecs;
  }
  // ... and the buffer the fill math asks for at 40 us, rate * (40 + 150) us * truesize, is
  // enough.
  absl::StatusOr<double> needed = RcvbufNeeded({.rate_pps = 812744,
                                                .truesize_bytes = 2994,
                                                .rcvbuf_bytes = 212992,
                                                .drain_gap_s = 150e-6,
                                                .margin = 0},
                                               40e-6);
  ASSERT_TRUE(needed.ok()) << needed.status();
  in.rx_usecs = 40;
  in.rcvbuf_bytes = static_cast<int64_t>(*needed) + 2994;  // + the one-packet rounding
  absl::StatusOr<WhatIfResult> r = SimulateWhatIf(in);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->socket_drops, 0u);
  EXPECT_GT(r->peak_socket_fill, 0.8);
}

TEST(SimWhatIf, CostsShowUpInTheCpuSplit) {
  WhatIfInput in = Seed001(50);
  in.cost = {.hardirq_ns = 2000, .poll_ns = 500, .packet_ns = 300};
  absl::StatusOr<WhatIfResult> r = SimulateWhatIf(in);
  ASSERT_TRUE(r.ok()) << r.status();
  const double seconds = 0.2;
  EXPECT_NEAR(static_cast<double>(r->cpu.hardirq_ns) / 1e9, r->interrupts_per_s * seconds * 2e-6,
              1e-4);
  // 812744 pps * 300 ns = 24% of the CPU in softirq packet work, plus poll overhead.
  EXPECT_GT(static_cast<double>(r->cpu.softirq_ns) / 1e9 / seconds, 0.24);
  EXPECT_LT(static_cast<double>(r->cpu.softirq_ns) / 1e9 / seconds, 0.30);
}

// The what-if's span: 1 s, or about 2e6 packets at high rates, at least 10 intervals and 2 gap
// periods, at most 1 s. A rate of 1e-12 pps asked for 2e24 us, cast to int64 (undefined
// behaviour: it came out -9223372036854775808); every input now gives a span in [1 us, 1 s].
TEST(SimWhatIf, TheSimulatedSpanIsBoundedForAnyInput) {
  EXPECT_EQ(WhatIfDurationUs(812744, 87, 0), 1'000'000);
  EXPECT_EQ(WhatIfDurationUs(1e7, 27, 0), 200'000);
  EXPECT_EQ(WhatIfDurationUs(1e7, 50'000, 0), 500'000);   // ten intervals
  EXPECT_EQ(WhatIfDurationUs(1e7, 20, 30'000), 600'000);  // two periods of 10 gaps
  for (const double rate : {1e-12, 0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(), 1e300}) {
    for (const int64_t rx_usecs : {int64_t{0}, int64_t{100}, std::numeric_limits<int64_t>::max()}) {
      const int64_t us = WhatIfDurationUs(rate, rx_usecs, 100'000);
      EXPECT_GE(us, 1) << rate << " pps, " << rx_usecs << " us";
      EXPECT_LE(us, kMaxWhatIfSimulatedUs) << rate << " pps, " << rx_usecs << " us";
    }
  }
}

// A ring that never limits a what-if whose device's ring is unknown: a delivery's packets.
TEST(SimWhatIf, AnUnknownRingIsSizedToTheDelivery) {
  EXPECT_EQ(WhatIfRingThatDoesNotLimit(812744, 87), 4096);
  EXPECT_EQ(WhatIfRingThatDoesNotLimit(1e7, 8192), 81922);
  EXPECT_EQ(WhatIfRingThatDoesNotLimit(1e7, 100'000), 1'000'002);
  EXPECT_EQ(WhatIfRingThatDoesNotLimit(1e300, 100'000), kMaxSimRingSize);
  EXPECT_EQ(WhatIfRingThatDoesNotLimit(std::numeric_limits<double>::quiet_NaN(), 1), 4096);
}

TEST(SimWhatIf, RejectsInputsByName) {
  WhatIfInput in = Seed001(84);
  in.truesize_bytes = 0;
  EXPECT_THAT(SimulateWhatIf(in).status().message(), HasSubstr("truesize_bytes = 0"));
  in = Seed001(84);
  in.rate_pps = 0;
  EXPECT_THAT(SimulateWhatIf(in).status().message(), HasSubstr("arrivals.rate_pps"));
  in = Seed001(-1);
  EXPECT_THAT(SimulateWhatIf(in).status().message(), HasSubstr("rx_usecs = -1"));
}

}  // namespace
}  // namespace nictune::tuner
