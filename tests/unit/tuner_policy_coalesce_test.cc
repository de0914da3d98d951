// SPDX-License-Identifier: Apache-2.0
// Coalescing, deferral and rmem policies through Recommend(), on seed 001's numbers: a 10 GbE
// ixgbe queue at 812744 pps of 1514-byte frames into one UDP socket with the default 212992-byte
// buffer (truesize 2994), under the old adaptive ITR whose bulk class was 8K ints/s (125 us).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/recommend.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kRate = 812744;

Observation Seed001() {
  Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  QueueObservation q;
  q.device = "eth0";
  q.queue = 0;
  SocketObservation s;
  s.name = "udp 0.0.0.0:12865 (netserver)";
  s.packets = kRate * 10;
  s.truesize_mean_bytes = 2994;
  s.truesize_p99_bytes = 2994;
  s.rcvbuf_bytes = 212992;
  s.peak_fill = 1.0;
  s.drops = 4'000'000;  // seed: 4135 of 9613 Mb/s arrived
  q.sockets.push_back(s);
  q.rx_packets = kRate * 10;
  q.interrupts = 8000 * 10;  // adaptive bulk class, 125 us
  q.polls = q.interrupts;
  q.rx_work = q.rx_packets;
  q.drops.socket = s.drops;
  q.cpu = {0.02, 0.30, 0.40, 0.20};
  q.interrupt_cost_s = 2e-6;
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.adaptive_rx_supported = true;
  q.coalesce.adaptive_rx = true;
  q.coalesce.rx_usecs = 1;  // ixgbe's "dynamic" setting
  q.coalesce.rx_usecs_granularity = 1;
  q.coalesce.rx_usecs_max = 1022;
  q.coalesce.rx_ring_size = 512;
  obs.queues.push_back(q);
  return obs;
}

const Recommendation& Find(const std::vector<Recommendation>& recs, Knob knob) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob) return r;
  }
  static const Recommendation kMissing;
  ADD_FAILURE() << "no recommendation for " << KnobName(knob);
  return kMissing;
}

// What Recommend(obs, config) recommends for `knob`; a test failure when it fails or has none.
Recommendation RecommendationFor(const Observation& obs, const PolicyConfig& config, Knob knob) {
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, config);
  if (!recs.ok()) {
    ADD_FAILURE() << recs.status();
    return {};
  }
  return Find(*recs, knob);
}

// For the tests whose arithmetic is written out at a 10% margin.
PolicyConfig TenPercentMargin() {
  PolicyConfig config;
  config.margin = 0.10;
  return config;
}

bool Has(const std::vector<Recommendation>& recs, Knob knob) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob) return true;
  }
  return false;
}

TEST(CoalescePolicyTest, Seed001WithoutMarginPicksTheLongestDropFreeInterval) {
  PolicyConfig config;
  config.margin = 0;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(Seed001(), config);
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_GE(usecs.recommended, 70);
  EXPECT_LE(usecs.recommended, 87);
  EXPECT_EQ(usecs.recommended, 87);  // floor(87.53 us)
  const double interrupts_per_s = 1e6 / static_cast<double>(usecs.recommended);
  EXPECT_NEAR(interrupts_per_s, 12000, 600);  // ~12K ints/s, as the seed chose
  // Coalescing is set per device: the queue's recommendation targets its device.
  EXPECT_EQ(usecs.scope, Scope::kDevice);
  EXPECT_EQ(usecs.target, "eth0");
  EXPECT_EQ(usecs.expected_gain, 1.0);  // drops now, none predicted
  // Adaptive let the rate fall to 8K < the 11.4K floor while the socket dropped: off. The floor
  // counts whole packets: the socket holds floor(71.14) = 71, 812744 / 71 = 11447/s.
  const Recommendation& adaptive = Find(*recs, Knob::kAdaptiveRx);
  EXPECT_EQ(adaptive.current, 1);
  EXPECT_EQ(adaptive.recommended, 0);
  EXPECT_THAT(adaptive.formula, HasSubstr("8000/s < floor 1 / drop-free interval = 11447/s"));
}

TEST(CoalescePolicyTest, Seed001FormulaShowsTheArithmeticWithTheDefaultMargin) {
  // 5% of 71.14 packets kept: 67.58 usable, 67 whole packets, which 812744 pps bring in 82.44 us.
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(Seed001(), PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, 82);
  EXPECT_THAT(usecs.formula,
              HasSubstr("C = 212992 B / 2994 B = 71.14 packets; T_fill = 71.14 / 812744 pps = "
                        "87.53 us; fill bound u_max = (1 - 0.05) * 87.53 us - 0.00 us = 83.15 us "
                        "(for an even flow; counted below in the whole packets each delivery "
                        "brings)"));
  EXPECT_THAT(usecs.formula, HasSubstr("usable = (1 - 0.05) * 71.14 = 67.58 packets"));
  EXPECT_THAT(usecs.formula, HasSubstr("cost floor = 2.00 us / 0.1 = 20.00 us (ceiling 50000"));
  EXPECT_THAT(usecs.formula, HasSubstr("-> rx-usecs 82"));
}

// Gaps up to (1 - 0.05) * 87.53 us = 83.15 us move seed 001's plan: a probe that saw no wait
// longer than its 20 us slots, or timed none, leaves the plan resting on an unmeasured gap.
TEST(CoalescePolicyTest, AnUnmeasuredDrainGapLowersTheConfidenceAndSaysWhy) {
  const Recommendation seen = RecommendationFor(Seed001(), PolicyConfig{}, Knob::kRxUsecs);
  ASSERT_GT(seen.confidence.value, 0);
  EXPECT_THAT(seen.confidence.reason, Not(HasSubstr("drain gap")));

  Observation slotted = Seed001();
  slotted.queues[0].sockets[0].drain_gap_seen_below_s = 20e-6;
  const Recommendation in_slots = RecommendationFor(slotted, PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_EQ(in_slots.recommended, seen.recommended);
  EXPECT_NEAR(in_slots.confidence.value, 0.7 * seen.confidence.value, 1e-9);
  EXPECT_THAT(in_slots.confidence.reason,
              HasSubstr("the reader's pauses (drain gaps) of udp 0.0.0.0:12865 (netserver) "
                        "were timed only up to 20 us, the probe's slots; a pause up to 83 us "
                        "would change the plan"));
  // The buffers the plan sizes rest on the same gap.
  EXPECT_THAT(RecommendationFor(slotted, PolicyConfig{}, Knob::kRmemDefault).confidence.reason,
              HasSubstr("timed only up to 20 us"));

  Observation untimed = Seed001();
  untimed.queues[0].sockets[0].drain_gap_seen_below_s = 0;
  EXPECT_THAT(RecommendationFor(untimed, PolicyConfig{}, Knob::kRxUsecs).confidence.reason,
              HasSubstr("the reader's pauses (drain gaps) of udp 0.0.0.0:12865 (netserver) "
                        "were not timed (planned as 0 us; a pause up to 83 us would change the "
                        "plan)"));

  // Slots longer than any gap that moves the plan hide nothing it needs.
  Observation long_slots = Seed001();
  long_slots.queues[0].sockets[0].drain_gap_seen_below_s = 1e-3;
  EXPECT_EQ(RecommendationFor(long_slots, PolicyConfig{}, Knob::kRxUsecs).confidence.value,
            seen.confidence.value);
}

// The same unseen gaps would only shorten the interval further: a move down from a static 200 us
// to 82 us is as sure as the window's measurements, and says why; a move up from 20 us is not.
TEST(CoalescePolicyTest, AnUnseenDrainGapDoesNotHoldAShorterInterval) {
  for (const uint32_t current : {200u, 20u}) {
    Observation obs = Seed001();
    obs.queues[0].coalesce.adaptive_rx = false;
    obs.queues[0].coalesce.rx_usecs = current;
    obs.queues[0].coalesce.rx_frames_supported = true;
    obs.queues[0].coalesce.rx_frames = current == 200 ? 256 : 8;
    // Drops at the current interval would cap the plan below it.
    obs.queues[0].sockets[0].drops = 0;
    obs.queues[0].drops.socket = 0;
    Observation seen_whole = obs;
    obs.queues[0].sockets[0].drain_gap_seen_below_s = 20e-6;
    absl::StatusOr<std::vector<Recommendation>> whole = Recommend(seen_whole, PolicyConfig{});
    absl::StatusOr<std::vector<Recommendation>> slotted = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(whole.ok()) << whole.status();
    ASSERT_TRUE(slotted.ok()) << slotted.status();
    for (const Knob knob : {Knob::kRxUsecs, Knob::kRxFrames}) {
      const Recommendation& r = Find(*slotted, knob);
      const double measured = Find(*whole, knob).confidence.value;
      if (current == 200) {
        EXPECT_LT(r.recommended, r.current) << r.formula;
        EXPECT_DOUBLE_EQ(r.confidence.value, measured) << r.confidence.reason;
        EXPECT_THAT(r.confidence.reason,
                    HasSubstr("a drain gap longer than the probe's slots saw would only shorten "
                              "it further"));
      } else {
        EXPECT_GT(r.recommended, r.current) << r.formula;
        EXPECT_NEAR(r.confidence.value, 0.7 * measured, 1e-9) << r.confidence.reason;
      }
    }
  }
}

// Seed 001's socket at a static 80 us (below its 83.15 us limit) dropping 100000 packets, all
// while its reader had not read for 1 s: 1 s less the 87.53 us the socket takes to fill, at
// 812744 pps, is 812673 arrivals the socket could not hold at any interval. The drops are the
// reader's: the plan is not held below the current interval for them, and says why.
TEST(CoalescePolicyTest, AStalledReadersDropsAreSetAsideAndSaid) {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  q.coalesce.adaptive_rx = false;
  q.coalesce.rx_usecs = 80;
  q.sockets[0].drops = 100000;
  q.drops.socket = 100000;
  const Recommendation held = RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_LE(held.recommended, 72) << "drops at 80 us hold the plan below (1 - 0.1) * 80 us";

  q.sockets[0].open_drain_wait_s = 1.0;
  const Recommendation usecs = RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
  // Kept: nothing drops beyond the reader's, and 80 us is within half the margin of the plan.
  EXPECT_EQ(usecs.recommended, 80);
  EXPECT_THAT(usecs.unresolved,
              HasSubstr("socket udp 0.0.0.0:12865 (netserver): its reader has not read for "
                        "1.00 s, past the 0.09 ms the socket takes to fill and twice the longest "
                        "pause it came back from (0.00 ms): 100000 of its drops are the reader's; "
                        "no interval or buffer helps while it does not read"));
  EXPECT_THAT(usecs.formula, HasSubstr("; set aside: socket udp 0.0.0.0:12865"));

  // A pause shorter than the fill time sets nothing aside.
  q.sockets[0].open_drain_wait_s = 50e-6;
  const Recommendation brief = RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_EQ(brief.unresolved, held.unresolved);
  EXPECT_LE(brief.recommended, 72);
}

TEST(CoalescePolicyTest, ASmallInterruptCpuShareIsPrintedWithItsDigits) {
  PolicyConfig config;
  config.interrupt_cpu_share = 0.0004;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(Seed001(), config);
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_THAT(Find(*recs, Knob::kRxUsecs).formula,
              HasSubstr("cost floor = 2.00 us / 0.0004 = 5000.00 us (ceiling 200 ints/s"));
}

// Every number in the formula must be the one a person gets redoing the arithmetic from the
// numbers before it.
TEST(CoalescePolicyTest, FormulaNumbersMatchTheirArithmetic) {
  Observation obs = Seed001();
  obs.queues[0].sockets[0].rcvbuf_bytes = 425984;
  obs.queues[0].sockets[0].truesize_mean_bytes = 2304;
  obs.queues[0].sockets[0].drain_gap_s = 15e-6;
  obs.queues[0].sockets[0].packets = 523000 * 10;
  obs.queues[0].coalesce.adaptive_rx = false;
  // No drops at the current interval (drops there would keep the choice below it).
  obs.queues[0].sockets[0].drops = obs.queues[0].drops.socket = 0;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  double rcvbuf, truesize, c, c2, rate, tfill, margin, tfill2, gap, umax;
  int rx_usecs;
  const char* text = usecs.formula.c_str();
  ASSERT_EQ(std::sscanf(text,
                        "C = %lf B / %lf B = %lf packets; T_fill = %lf / %lf pps = %lf us; "
                        "fill bound u_max = (1 - %lf) * %lf us - %lf us = %lf us",
                        &rcvbuf, &truesize, &c, &c2, &rate, &tfill, &margin, &tfill2, &gap, &umax),
            10)
      << text;
  EXPECT_EQ(rcvbuf, 425984);
  EXPECT_EQ(truesize, 2304);
  EXPECT_NEAR(c, rcvbuf / truesize, 0.005);
  EXPECT_EQ(c, c2);
  EXPECT_EQ(rate, 523000);
  EXPECT_NEAR(tfill, c / rate * 1e6, 0.01);
  EXPECT_EQ(tfill, tfill2);
  EXPECT_NEAR(margin, kDefaultMargin, 1e-9);
  EXPECT_NEAR(gap, 15, 1e-9);
  EXPECT_NEAR(umax, (1 - margin) * tfill - gap, 0.01);
  // The per-interrupt refinement: whole packets, and the 15 us gap is shorter than the interval,
  // so only the one cycle it overlaps is in the socket when the reader comes back.
  const size_t per = usecs.formula.find("per interrupt: ");
  ASSERT_NE(per, std::string::npos);
  double m2, c3, usable, peak;
  ASSERT_EQ(std::sscanf(text + per,
                        "per interrupt: usable = (1 - %lf) * %lf = %lf packets at the peak %lf "
                        "pps",
                        &m2, &c3, &usable, &peak),
            4)
      << text + per;
  EXPECT_EQ(m2, margin);
  EXPECT_EQ(c3, c);
  // Both usable and C are printed to two decimals.
  EXPECT_NEAR(usable, (1 - margin) * c, 0.01);
  EXPECT_EQ(peak, rate);  // no peak measured: the mean
  const size_t arrow = usecs.formula.find("-> rx-usecs ");
  ASSERT_NE(arrow, std::string::npos);
  ASSERT_EQ(std::sscanf(text + arrow, "-> rx-usecs %d", &rx_usecs), 1);
  EXPECT_EQ(rx_usecs, usecs.recommended);
  EXPECT_THAT(usecs.formula,
              HasSubstr(absl::StrFormat("at u = %d us: 1 delivery: floor(523000 pps x %d.00 us "
                                        "cycle = %.2f) + 1 = %.0f packets (drain gap 15.00 us)",
                                        rx_usecs, rx_usecs,
                                        std::floor(rate * rx_usecs * 1e-6 * 100) / 100,
                                        std::floor(rate * rx_usecs * 1e-6) + 1)));
  // A delivery of whole packets fits while rate * u < floor(usable).
  const double one_cycle_limit_us = std::floor(usable) / peak * 1e6;
  EXPECT_LT(rx_usecs, one_cycle_limit_us);
  EXPECT_GE(rx_usecs + 1, one_cycle_limit_us);  // the longest whole microsecond that fits
}

TEST(CoalescePolicyTest, DriverGranularityRoundsDown) {
  Observation obs = Seed001();
  obs.queues[0].coalesce.rx_usecs_granularity = 2;  // ixgbe EITR counts 2 us
  PolicyConfig config;
  config.margin = 0;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, config);
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_EQ(Find(*recs, Knob::kRxUsecs).recommended, 86);
}

// The closed-loop test's socket (tests/bpf/closed_loop_test.cc): 10000 pps into 24000 B of 768 B
// packets = 31.25, T_fill 3125 us, usable 28.12 at margin 0.1, on a driver that takes rx-usecs up
// to 8192 and has a 4096-descriptor ring; interrupts per second as given, adaptive-rx off.
Observation ClosedLoopSocket(uint32_t rx_usecs, uint64_t interrupts_per_s) {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  q.sockets[0].packets = 10000 * 10;
  q.sockets[0].truesize_mean_bytes = q.sockets[0].truesize_p99_bytes = 768;
  q.sockets[0].rcvbuf_bytes = 24000;
  q.rx_packets = q.rx_work = 10000 * 10;
  q.interrupts = q.polls = interrupts_per_s * 10;
  q.coalesce.adaptive_rx = false;
  q.coalesce.rx_usecs = rx_usecs;
  q.coalesce.rx_usecs_max = 8192;
  q.coalesce.rx_ring_size = 4096;
  return obs;
}

TEST(CoalescePolicyTest, RxFramesFollowWholeDeliveries) {
  // 10000 pps into 28.12 usable packets: a delivery of whole packets fits while 10000 pps * u <
  // 28, so 2799 us, 27.99 packets' worth: 28 frames, what the socket takes.
  Observation obs = ClosedLoopSocket(8192, 120);
  obs.queues[0].coalesce.rx_frames_supported = true;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_EQ(Find(*recs, Knob::kRxUsecs).recommended, 2799);
  EXPECT_EQ(Find(*recs, Knob::kRxFrames).recommended, 28);
}

// The socket's arrivals are a sample (the probe budget's slots), the queue's packets the NIC's
// own count. A sample a little below the queue's rate is the whole queue read with noise: the
// plan takes the exact rate, and says so; one well below it (other traffic shares the queue) or
// above it (a socket fed by more queues) is the socket's own.
TEST(CoalescePolicyTest, ASampleNearTheQueuesRateTakesTheQueuesExactRate) {
  Observation obs = ClosedLoopSocket(8192, 120);  // 10000 pps into 28.12 usable packets
  SocketObservation& socket = obs.queues[0].sockets[0];
  socket.packets = 9700 * 10;
  const Recommendation near = RecommendationFor(obs, TenPercentMargin(), Knob::kRxUsecs);
  EXPECT_EQ(near.recommended, 2799);  // as at 10000 pps
  EXPECT_THAT(near.formula,
              HasSubstr("/ 10000 pps (the queue's rx rate: the socket's sampled 9700 pps is "
                        "within 10% of it)"));

  socket.packets = 8000 * 10;
  const Recommendation below = RecommendationFor(obs, TenPercentMargin(), Knob::kRxUsecs);
  EXPECT_GT(below.recommended, 2799);
  EXPECT_THAT(below.formula, HasSubstr("/ 8000 pps = "));

  socket.packets = 10500 * 10;
  const Recommendation above = RecommendationFor(obs, TenPercentMargin(), Knob::kRxUsecs);
  EXPECT_LT(above.recommended, 2799);
  EXPECT_THAT(above.formula, HasSubstr("/ 10500 pps = "));

  // Observed as a whole device, the queue's count is every packet the device took: a sample a
  // little above it is noise too.
  obs.queues[0].queue = -1;
  const Recommendation device = RecommendationFor(obs, TenPercentMargin(), Knob::kRxUsecs);
  EXPECT_EQ(device.recommended, 2799);
  EXPECT_THAT(device.formula,
              HasSubstr("(the queue's rx rate: the socket's sampled 10500 pps is within 10%"));
}

TEST(CoalescePolicyTest, RxFramesNeverExceedWhatTheWorstSocketCanTake) {
  // Seed 001 with 10 us interrupts: the cost floor (100 us) brings more than the socket's 64.03
  // usable packets until its buffer grows; a frame limit above 64 would fire only after the
  // overflow.
  Observation obs = Seed001();
  obs.queues[0].interrupt_cost_s = 10e-6;
  obs.queues[0].coalesce.rx_frames_supported = true;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_GT(static_cast<double>(Find(*recs, Knob::kRxUsecs).recommended) * 812744e-6, 64.03);
  EXPECT_EQ(Find(*recs, Knob::kRxFrames).recommended, 64);
  // The frame limit then fires first: 812744 pps / 64 = 12699 interrupts/s, not rx-usecs' rate,
  // and both say so.
  EXPECT_THAT(Find(*recs, Knob::kRxFrames).expected_effect,
              HasSubstr("interrupts every 64 frames, about 12699/s"));
  EXPECT_THAT(Find(*recs, Knob::kRxUsecs).expected_effect,
              HasSubstr("rx-frames 64 fires first: about 12699 interrupts/s"));
}

TEST(CoalescePolicyTest, ShorteningADropFreeIntervalGainsTheShareOfTheMarginItGivesBack) {
  // The closed-loop socket (28 whole packets of the 28.12 usable fit below 2800 us, the margin
  // 2800 * 0.1 / 0.9 = 311.1 us), now with nothing dropping. Above 2800 us the current interval
  // only eats into the margin: a value 13 us above it is kept (within half the margin, 5%, of
  // the plan: the rate's noise), halfway through the margin is worth half, beyond it all of it.
  Observation obs = ClosedLoopSocket(0, 350);
  QueueObservation& q = obs.queues[0];
  q.sockets[0].drops = 0;
  q.sockets[0].peak_fill = 0.9;
  q.drops.socket = 0;
  q.coalesce.rx_usecs = 2813;
  const Recommendation kept = RecommendationFor(obs, TenPercentMargin(), Knob::kRxUsecs);
  EXPECT_EQ(kept.recommended, 2813);
  EXPECT_EQ(kept.expected_gain, 0);
  EXPECT_THAT(
      kept.formula,
      HasSubstr("-> rx-usecs 2799, within 5.0% (0.50 of the margin) of the current 2813 "
                "us, which drops nothing beyond what stalls explain -> keep rx-usecs 2813"));
  // The same 13 us above, with the socket dropping at it: a change, however small.
  q.sockets[0].drops = 50;
  q.drops.socket = 50;
  EXPECT_LT(RecommendationFor(obs, TenPercentMargin(), Knob::kRxUsecs).recommended, 2800);
  q.sockets[0].drops = 0;
  q.drops.socket = 0;
  const double margin_us = 2800.0 * 0.1 / 0.9;
  for (const uint32_t current : {2956u, 3125u, 4096u}) {
    q.coalesce.rx_usecs = current;
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    EXPECT_EQ(usecs.recommended, 2799) << "current " << current;
    const double expected = std::min(1.0, (current - 2800.0) / margin_us);
    EXPECT_NEAR(usecs.expected_gain, expected, 1e-3) << "current " << current;
  }
}

TEST(CoalescePolicyTest, RxFramesFollowTheRateWhereTheDriverCountsFrames) {
  Observation obs = Seed001();
  obs.queues[0].coalesce.rx_frames_supported = true;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  // ceil(812744 pps * 78 us) = ceil(63.39) = 64
  EXPECT_EQ(Find(*recs, Knob::kRxFrames).recommended, 64);
  obs.queues[0].coalesce.rx_frames_supported = false;
  recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok());
  EXPECT_FALSE(Has(*recs, Knob::kRxFrames));
}

TEST(CoalescePolicyTest, AdaptiveThatKeepsTheFloorStaysOn) {
  Observation obs = Seed001();
  obs.queues[0].interrupts = 12500 * 10;  // above the 11.4K floor
  obs.queues[0].drops.socket = 0;
  obs.queues[0].sockets[0].drops = 0;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_EQ(Find(*recs, Knob::kAdaptiveRx).recommended, 1);
  EXPECT_EQ(Find(*recs, Knob::kRxUsecs).recommended, 1);  // left to adaptive
}

TEST(CoalescePolicyTest, WhenFloorExceedsCeilingTheBufferGrows) {
  Observation obs = Seed001();
  // An interrupt that costs 10 us may come at most every 100 us at a 10% CPU share: above the
  // 78.75 us the default buffer allows (64 whole packets of the 64.03 usable). At 100 us a
  // delivery is floor(81.27) + 1 = 82 packets; up to 102 us (floor(82.90) + 1 = 83) it is a
  // packet more, the longest interval within a packet of the floor's buffer.
  obs.queues[0].interrupt_cost_s = 10e-6;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, 102);
  EXPECT_THAT(usecs.expected_effect, HasSubstr("buffer must grow"));
  EXPECT_THAT(usecs.formula, HasSubstr("at 102 us no socket holds more than at the cost floor "
                                       "100 us plus a packet"));
  // 83 / 0.9 * 2994 = 276113.3 B, 276114 whole bytes -> 4 KiB pages: 278528.
  const Recommendation& rmem_default = Find(*recs, Knob::kRmemDefault);
  EXPECT_EQ(rmem_default.recommended, 278528);
  EXPECT_THAT(rmem_default.formula,
              HasSubstr("at u = 102 us: 1 delivery: floor(812744 pps x 102.00 us cycle = 82.90) "
                        "+ 1 = 83 packets (drain gap 0.00 us) > 64.03"));
  EXPECT_THAT(rmem_default.formula,
              HasSubstr("rcvbuf_needed = 83 packets / (1 - 0.10) * 2994 B = 276114 B"));
  EXPECT_TRUE(rmem_default.unresolved.empty()) << rmem_default.unresolved;
  const Recommendation& rmem_max = Find(*recs, Knob::kRmemMax);
  EXPECT_EQ(rmem_max.current, 212992);
  EXPECT_EQ(rmem_max.recommended, 278528);  // rmem_default <= rmem_max
}

// A drain gap the probe's slots missed would need a still larger buffer: raising rmem_default
// and rmem_max, or advising a larger SO_RCVBUF to an application that set its own, to what the
// plan needs is as sure as the window's measurements.
TEST(CoalescePolicyTest, AnUnseenDrainGapDoesNotHoldALargerBuffer) {
  for (const bool locked : {false, true}) {
    SCOPED_TRACE(locked ? "SO_RCVBUF set by the application" : "on rmem_default");
    Observation whole = Seed001();
    whole.queues[0].interrupt_cost_s = 10e-6;  // the floor above the buffer's ceiling: it grows
    whole.queues[0].sockets[0].rcvbuf_locked = locked;
    Observation slotted = whole;
    slotted.queues[0].sockets[0].drain_gap_seen_below_s = 20e-6;
    absl::StatusOr<std::vector<Recommendation>> seen = Recommend(whole, TenPercentMargin());
    absl::StatusOr<std::vector<Recommendation>> missed = Recommend(slotted, TenPercentMargin());
    ASSERT_TRUE(seen.ok()) << seen.status();
    ASSERT_TRUE(missed.ok()) << missed.status();
    const std::vector<Knob> raised = locked ? std::vector<Knob>{Knob::kSoRcvbuf}
                                            : std::vector<Knob>{Knob::kRmemDefault, Knob::kRmemMax};
    for (const Knob knob : raised) {
      const Recommendation& r = Find(*missed, knob);
      EXPECT_GT(r.recommended, r.current) << r.formula;
      EXPECT_DOUBLE_EQ(r.confidence.value, Find(*seen, knob).confidence.value)
          << r.confidence.reason;
      EXPECT_THAT(r.confidence.reason,
                  HasSubstr("a drain gap longer than the probe's slots saw would only raise it "
                            "further"));
    }
    // The interval it plans beside them still rests on the gap.
    EXPECT_NEAR(Find(*missed, Knob::kRxUsecs).confidence.value,
                0.7 * Find(*seen, Knob::kRxUsecs).confidence.value, 1e-9);
  }
}

// 10 kpps in bursts at 20 kpps (their length unknown) into 64 KiB behind a 2 ms drain gap, the
// reader on the softirq's CPU: no interval fits the 25.60 usable packets (the gap alone brings
// 40), so the buffer must grow. At the cost floor, 1.2 us / 0.10 = 12 us, each packet is its own
// delivery: 1 + floor(2001.23 us / 50 us) = 41 packets; at 1000 us, 2 deliveries of
// floor(20000 pps * 1003.27 us) + 1 = 21 packets, 42. A packet more than the floor's (within
// max(1, 0.10 * 41)) buys 1/83 of the interrupts: 42 / 0.9 * 2304 B = 107520 B -> 110592 (4 KiB
// pages).
TEST(CoalescePolicyTest, WhenTheBufferMustGrowALongerIntervalNeedingAboutAsMuchIsChosen) {
  Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  obs.host.rmem_default = 65536;
  QueueObservation q;
  q.device = "eth0";
  q.queue = 0;
  q.rx_packets = 100'000;
  q.rx_work = q.rx_packets;
  q.rx_peak_rate_pps = 20'000;
  q.interrupt_cost_s = 1.2e-6;
  q.packet_cost_s = 0.103125e-6;
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.rx_usecs_granularity = 1;
  q.coalesce.rx_usecs_max = 1000;
  q.coalesce.rx_ring_size = 1024;
  SocketObservation s;
  s.name = "udp 0.0.0.0:5001";
  s.packets = 100'000;
  s.truesize_mean_bytes = 2304;
  s.truesize_p99_bytes = 2304;
  s.rcvbuf_bytes = 65536;
  s.drain_gap_s = 2e-3;
  s.reader_shares_softirq_cpu = true;
  s.peak_rate_pps = 20'000;
  q.sockets.push_back(s);
  obs.queues.push_back(q);
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, 1000);
  EXPECT_THAT(usecs.formula,
              HasSubstr("at 1000 us no socket holds more than at the cost floor 12 us plus "
                        "max(1, 0.10 of it) packets (udp 0.0.0.0:5001: 42 packets <= 41 + 4.10)"));
  EXPECT_THAT(usecs.expected_effect, HasSubstr("buffer must grow"));
  const Recommendation& rmem_default = Find(*recs, Knob::kRmemDefault);
  EXPECT_EQ(rmem_default.recommended, 110592);
  EXPECT_THAT(rmem_default.formula, HasSubstr("= 107520 B"));
  EXPECT_TRUE(rmem_default.unresolved.empty()) << rmem_default.unresolved;
}

TEST(CoalescePolicyTest, ApplicationThatSetsSoRcvbufGetsAdviceAndRmemMaxAdmitsIt) {
  Observation obs = Seed001();
  obs.queues[0].interrupt_cost_s = 10e-6;
  obs.queues[0].sockets[0].rcvbuf_locked = true;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& advice = Find(*recs, Knob::kSoRcvbuf);
  EXPECT_EQ(advice.scope, Scope::kSocket);
  EXPECT_EQ(advice.target, "udp 0.0.0.0:12865 (netserver)");
  EXPECT_EQ(advice.recommended, 138057);  // ceil(276113.3 / 2): the kernel doubles it
  EXPECT_EQ(Find(*recs, Knob::kRmemDefault).recommended, 212992);  // not used by this socket
  EXPECT_GE(Find(*recs, Knob::kRmemMax).recommended, 138057);
}

// A socket that set more than the SO_RCVBUF cap (32 MiB, sk_rcvbuf 64 MiB) and needs more still:
// the advice keeps what it has rather than shrinking it to the cap, and says why it falls short.
// 812744 pps behind a 100 ms gap hold 81275 packets of 2304 B: 208 MB.
TEST(CoalescePolicyTest, SoRcvbufAdviceIsNeverBelowTheSocketsOwn) {
  Observation obs = Seed001();
  SocketObservation& s = obs.queues[0].sockets[0];
  s.rcvbuf_locked = true;
  s.rcvbuf_bytes = 100'000'000;
  s.truesize_mean_bytes = s.truesize_p99_bytes = 2304;
  s.drain_gap_s = 0.1;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& advice = Find(*recs, Knob::kSoRcvbuf);
  EXPECT_EQ(advice.current, 50'000'000);
  EXPECT_EQ(advice.recommended, 50'000'000);  // the cap, 33554432, would halve the buffer
  EXPECT_THAT(advice.unresolved, HasSubstr("above twice the SO_RCVBUF cap 33554432"));
}

// Two sockets on one queue at a 100 us cost floor (10 us an interrupt): one that set SO_RCVBUF
// (65536 B, 27 usable packets) at 400,000 pps fills furthest, while a busier one on the default
// buffer (212992 B) at 1,000,000 pps holds about 102 packets an interval, more than its 88 usable.
// Each gets its own remedy: advice for the first, rmem_default for the second.
TEST(CoalescePolicyTest, EverySocketOnTheQueueIsSizedNotOnlyTheOneThatFillsFurthest) {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  SocketObservation locked;
  locked.name = "udp port 9000 (SO_RCVBUF)";
  locked.packets = 400'000 * 10;
  locked.truesize_mean_bytes = 2304;
  locked.rcvbuf_bytes = 65536;
  locked.rcvbuf_locked = true;
  SocketObservation busier = locked;
  busier.name = "udp port 9001 (default buffer)";
  busier.packets = 1'000'000 * 10;
  busier.rcvbuf_bytes = 212992;
  busier.rcvbuf_locked = false;
  q.sockets = {locked, busier};
  q.rx_packets = 1'400'000 * 10;
  q.interrupts = 20'000 * 10;
  q.drops.socket = 0;
  q.cpu = {};
  q.interrupt_cost_s = 10e-6;
  q.coalesce.adaptive_rx = false;
  q.coalesce.rx_usecs = 50;
  q.coalesce.rx_ring_size = 4096;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& advice = Find(*recs, Knob::kSoRcvbuf);
  EXPECT_EQ(advice.target, locked.name);
  EXPECT_GT(advice.recommended, 65536 / 2) << advice.formula;
  const Recommendation& rmem_default = Find(*recs, Knob::kRmemDefault);
  EXPECT_GT(rmem_default.recommended, 212992) << rmem_default.formula;
  EXPECT_THAT(rmem_default.formula, HasSubstr("(socket udp port 9001 (default buffer), now "
                                              "212992 B) -> rmem_default"));
}

// The closed loop's socket on the emulated NIC over a 2 s window: 10,000 pps, truesize 768,
// 24000 bytes (31.25 packets), at a static `rx_usecs`, with `drops` and `stall_s` of stalled
// delivery.
Observation EmulatedNicWindow(uint32_t rx_usecs, uint64_t drops, double stall_s) {
  Observation obs;
  obs.window = absl::Seconds(2);
  obs.samples = 4;
  QueueObservation q;
  q.device = "emu0";
  SocketObservation sock;
  sock.name = "udp 0.0.0.0:9000";
  sock.packets = 20000;
  sock.truesize_mean_bytes = 768;
  sock.rcvbuf_bytes = 24000;
  sock.peak_fill = 1.0;
  sock.drops = drops;
  q.sockets.push_back(sock);
  q.drops.socket = sock.drops;
  q.stall_s = stall_s;
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.rx_usecs = rx_usecs;
  q.coalesce.rx_usecs_granularity = 1;
  q.coalesce.rx_usecs_max = 8192;
  obs.queues.push_back(q);
  return obs;
}

// The closed loop's socket on the emulated NIC (10,000 pps, truesize 768, 24000 bytes: 31.25
// packets, drop-free up to about 2897 us at the default margin), at a static 2111 us after a
// window with 12 drops. When a 5 ms stall of the NIC brought 50 of the socket's packets in one
// late burst, the drops are the stall's and the fill math's interval stands; without a stall they
// are the interval's, and it stays below 0.9 * 2111 us.
TEST(CoalescePolicyTest, DropsNoMoreThanAStallBroughtDoNotCapTheInterval) {
  for (const double stall_s : {0.005, 0.0}) {
    const Observation obs = EmulatedNicWindow(2111, 12, stall_s);
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    if (stall_s > 0) {
      EXPECT_GT(usecs.recommended, 2800) << usecs.formula;
      EXPECT_THAT(usecs.formula, HasSubstr("no more than arrived in 5.00 ms of stalled delivery"));
    } else {
      EXPECT_LE(usecs.recommended, 1899) << usecs.formula;
      EXPECT_THAT(usecs.formula,
                  HasSubstr("sockets dropped at the current 2111 us, which the model holds "
                            "(random arrivals beyond an even flow, or a reader's pauses the "
                            "probes did not time: if a shorter interval leaves the drops as they "
                            "are, they are not the interval's)"));
    }
  }
}

// The same window where the socket-fill probe counted none of the socket's arrivals: the kernel's
// census listed it with its 12 drops, and the plan takes the queue's 10,000 pps for it. The 50 of
// its packets a 5 ms stall brought late explain the drops as they do for a counted socket; a
// count of its drops alone would leave all 12 beyond the stall and shorten the interval by 10%
// every window.
TEST(CoalescePolicyTest, AStallExplainsTheDropsOfASocketWhoseArrivalsWereNotCounted) {
  for (const double stall_s : {0.005, 0.0}) {
    Observation obs = EmulatedNicWindow(2111, 12, stall_s);
    obs.queues[0].rx_packets = 20000;
    SocketObservation& sock = obs.queues[0].sockets[0];
    sock.arrivals_measured = false;
    sock.arrivals_share = 0;
    sock.packets = sock.drops;
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    EXPECT_THAT(usecs.formula, HasSubstr("the socket's own arrivals were not counted"));
    if (stall_s > 0) {
      EXPECT_GT(usecs.recommended, 2111) << usecs.formula;
      EXPECT_THAT(usecs.formula, HasSubstr("no more than arrived in 5.00 ms of stalled delivery"));
    } else {
      EXPECT_LE(usecs.recommended, 1899) << usecs.formula;
      EXPECT_THAT(usecs.formula, HasSubstr("sockets dropped at the current 2111 us"));
    }
  }
}

// The same socket dropping at a static 2111 us, with an interrupt cost whose floor (300 us / 0.10
// = 3000 us) is above what the drops allow (0.9 * 2111 us). No knob grows a live socket's buffer
// (rmem_default reaches new sockets), so a longer interval would only add to its drops: the plan
// stays below the current interval, and says why. Without the drops the floor wins, and the
// buffer must grow for it.
TEST(CoalescePolicyTest, DropsAtTheCurrentIntervalHoldItBelowTheCostFloor) {
  Observation dropping = EmulatedNicWindow(2111, 12, 0);
  dropping.queues[0].interrupt_cost_s = 300e-6;
  dropping.host.rmem_default = 24000;  // the socket's, on the default buffer
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(dropping, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& held = Find(*recs, Knob::kRxUsecs);
  EXPECT_LE(held.recommended, 1899) << held.formula;
  EXPECT_THAT(held.formula, HasSubstr("us, below the cost floor 3000.00 us, while the sockets "
                                      "that dropped keep their buffers"));
  // The buffers are sized for the floor's interval, for the sockets to come: about 31 packets at
  // 3000 us need 31 / 0.95 * 768 B, more than the 24000 B that hold 1899 us.
  const Recommendation& rmem_default = Find(*recs, Knob::kRmemDefault);
  EXPECT_GT(rmem_default.recommended, 24000) << rmem_default.formula;

  Observation quiet = EmulatedNicWindow(2111, 0, 0);
  quiet.queues[0].interrupt_cost_s = 300e-6;
  recs = Recommend(quiet, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& floor = Find(*recs, Knob::kRxUsecs);
  EXPECT_GE(floor.recommended, 3000) << floor.formula;
  EXPECT_THAT(floor.formula, HasSubstr("the buffer must grow"));
}

// The emulated NIC at the fill math's interval, 10,000 pps into a socket of 31 datagrams: 109
// drops in a 2 s window whose 11.7 ms of stalled delivery brought 117 packets late. The drops are
// the stall's, so they promise no gain: the interval moved by a few us is worth less than the
// controller's threshold, where it once claimed a gain of 1 every window. Without the stall the
// same drops are the interval's, and stepping down from it is worth it whole.
TEST(CoalescePolicyTest, DropsAStallExplainsPromiseNoGain) {
  for (const double stall_s : {0.0117, 0.0}) {
    Observation obs = EmulatedNicWindow(2892, 109, stall_s);
    obs.queues[0].rx_packets = 20000;
    obs.queues[0].interrupts = 690;  // 345 interrupts/s: one per 2892 us
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    if (stall_s > 0) {
      EXPECT_NEAR(static_cast<double>(usecs.recommended), 2892, 100) << usecs.formula;
      EXPECT_LT(usecs.expected_gain, 0.05) << usecs.expected_effect << "; " << usecs.formula;
    } else {
      EXPECT_LE(usecs.recommended, 2602) << usecs.formula;
      EXPECT_EQ(usecs.expected_gain, 1.0) << usecs.formula;
    }
  }
}

// A threaded device polls in kernel threads, whose time the softirq share does not hold: the
// emulated NIC's 10,000 pps took its poller 97% of a CPU, 97 us a packet, and no interval keeps
// up. Without the poller's time the packet cost is unknown and the plan claims a drop-free
// interval.
TEST(CoalescePolicyTest, AThreadedDevicesPollersTimeIsItsPacketCost) {
  for (const double poller_cpu : {0.97, 0.0}) {
    Observation obs = EmulatedNicWindow(2111, 0, 0);
    obs.queues[0].rx_packets = 20000;
    obs.queues[0].napi_poller_cpu = poller_cpu;
    obs.queues[0].napi_pollers = poller_cpu > 0 ? 1 : 0;
    const Recommendation usecs = RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
    if (poller_cpu > 0) {
      EXPECT_THAT(usecs.unresolved,
                  HasSubstr("CPU saturated: the softirq and the NAPI pollers need 10000 pps * "
                            "97.000 us = 0.97 of a CPU"));
    } else {
      EXPECT_EQ(usecs.unresolved, "") << usecs.formula;
      EXPECT_THAT(usecs.expected_effect, HasSubstr("no socket or ring overflow predicted"));
      EXPECT_THAT(usecs.expected_effect, Not(HasSubstr("drops/s")));
    }
  }
}

// The table shows a change's effect, not its formula: where the change is for drops, the effect
// says how many there are now.
TEST(CoalescePolicyTest, TheEffectOfAChangeForDropsSaysHowManyThereAreNow) {
  // 8000 drops over the 2 s window at rx-usecs 8192, each burst larger than the socket.
  const Recommendation usecs =
      RecommendationFor(EmulatedNicWindow(8192, 8000, 0), PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_LT(usecs.recommended, 8192) << usecs.formula;
  EXPECT_THAT(usecs.expected_effect,
              HasSubstr("no socket or ring overflow predicted (now 4000 drops/s)"));
  // The window's length in tenths of a second, as a person reads it.
  EXPECT_THAT(usecs.confidence.reason, HasSubstr("4 samples over 2.0 s, "));
}

// EmulatedNicWindow's queue without socket drops, its 256-descriptor ring having missed 50 of the
// 20,000 packets that arrived (the model's peak missed the burst that did it).
Observation RingDroppingWindow(uint32_t rx_usecs, double stall_s) {
  Observation obs = EmulatedNicWindow(rx_usecs, 0, stall_s);
  obs.queues[0].rx_packets = 20000;
  obs.queues[0].drops.ring = 50;
  obs.queues[0].coalesce.rx_ring_size = 256;
  return obs;
}

// The same socket, drop-free in the model up to about 2897 us, behind a ring that overflowed 50
// times at a static 2111 us (the model's peak missed the burst that did it). The ring's drops
// keep the plan below 0.9 * 2111 us, as sockets' drops do; when a 5 ms stall brought 50 packets
// late, they are the stall's, and the fill math's interval stands.
TEST(CoalescePolicyTest, RingDropsAtTheCurrentIntervalCapItUnlessAStallExplainsThem) {
  for (const double stall_s : {0.0, 0.005}) {
    const Observation obs = RingDroppingWindow(2111, stall_s);
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    if (stall_s > 0) {
      EXPECT_GT(usecs.recommended, 2800) << usecs.formula;
      EXPECT_THAT(usecs.formula, HasSubstr("no more than arrived in 5.00 ms of stalled delivery"));
    } else {
      EXPECT_LE(usecs.recommended, 1899) << usecs.formula;
      EXPECT_THAT(usecs.formula, HasSubstr("the ring dropped at the current 2111 us: the interval "
                                           "stays below (1 - 0.10) * 2111 us = 1899.90 us"));
      EXPECT_EQ(usecs.expected_gain, 1.0) << usecs.formula;
    }
  }
}

// Ring drops at a static 2111 us below a 3000 us cost floor: the ring is grown by hand only, so
// the plan holds below the current interval, and says the ring must grow for the floor.
TEST(CoalescePolicyTest, RingDropsAtTheCurrentIntervalHoldItBelowTheCostFloor) {
  Observation obs = RingDroppingWindow(2111, 0);
  obs.queues[0].interrupt_cost_s = 300e-6;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& held = Find(*recs, Knob::kRxUsecs);
  EXPECT_LE(held.recommended, 1899) << held.formula;
  EXPECT_THAT(held.formula, HasSubstr("below the cost floor 3000.00 us, while the ring of 256 "
                                      "descriptors drops at the current interval"));
  EXPECT_THAT(held.formula, Not(HasSubstr("the sockets that dropped")));
}

// Drops the ring alone saw, with no socket or ring size to model, still constrain the interval.
TEST(CoalescePolicyTest, RingDropsConstrainAQueueWithNothingModelled) {
  Observation obs = RingDroppingWindow(1000, 0);
  obs.queues[0].sockets.clear();
  obs.queues[0].coalesce.rx_ring_size = 0;
  const Recommendation usecs = RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_LE(usecs.recommended, 900) << usecs.formula;
  EXPECT_THAT(usecs.formula, HasSubstr("the ring dropped at the current 1000 us"));
}

// adaptive-rx that lets the interrupt rate fall below the floor (50/s against 1 / 2897 us) is
// switched off when the ring drops, not only when sockets do.
TEST(CoalescePolicyTest, AdaptiveRxGoesOffWhenTheRingDropsBelowTheFloor) {
  for (const uint64_t ring_drops : {uint64_t{0}, uint64_t{40}}) {
    Observation obs = EmulatedNicWindow(2111, 0, 0);
    QueueObservation& q = obs.queues[0];
    q.rx_packets = 20000;
    q.interrupts = 100;
    q.drops.ring = ring_drops;
    q.coalesce.adaptive_rx_supported = true;
    q.coalesce.adaptive_rx = true;
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& adaptive = Find(*recs, Knob::kAdaptiveRx);
    EXPECT_EQ(adaptive.recommended, ring_drops > 0 ? 0 : 1) << adaptive.formula;
  }
}

// A window of the closed loop at 2884 us whose socket probe's slots missed it: the socket kept up
// with 14,990 pps but for 34 drops, and those drops are all the window counted of it. Read as its
// arrivals they are 17 pps, which fills 31.25 packets in 1.8 s and let a longer interval through;
// as what they are, a floor, the plan takes the queue's rate and fills them in 2085 us.
TEST(CoalescePolicyTest, ASocketWhoseArrivalsWereNotCountedIsPlannedAtTheQueuesRate) {
  for (const bool measured : {true, false}) {
    Observation obs = EmulatedNicWindow(2884, 34, 0);
    obs.queues[0].rx_packets = 29980;
    obs.queues[0].interrupts = 694;
    obs.queues[0].sockets[0].packets = 34;
    obs.queues[0].sockets[0].arrivals_measured = measured;
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    if (measured) {
      EXPECT_THAT(usecs.formula, HasSubstr("T_fill = 31.25 / 17 pps"));
    } else {
      // (1 - 0.05) * 31.25 / 14990 pps = 1980.5 us
      EXPECT_THAT(usecs.formula, HasSubstr("T_fill = 31.25 / 14990 pps (the queue's rx rate"));
      EXPECT_LE(usecs.recommended, 1981) << usecs.formula;
    }
  }
}

// The rx_usecs recommendation for EmulatedNicWindow(rx_usecs) whose device received
// `device_packets` in `interrupts` interrupts, and whose socket's `socket_packets` were counted
// over `share` of the window (the probe's slots), scaled up.
Recommendation SampledSocketRxUsecs(uint32_t rx_usecs, uint64_t device_packets, uint64_t interrupts,
                                    uint64_t socket_packets, double share) {
  Observation obs = EmulatedNicWindow(rx_usecs, 0, 0);
  QueueObservation& q = obs.queues[0];
  q.rx_packets = device_packets;
  q.interrupts = interrupts;
  q.sockets[0].packets = socket_packets;
  q.sockets[0].arrivals_share = share;
  return RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
}

// A live window on the emulated NIC at 2500 us: the socket probe's slots watched 0.5% of it and
// saw 64 of the socket's packets, 16 to a delivery, which scale up to 6445 pps. Planned at that,
// the socket's 31.25 packets would take 4.6 ms to fill; 4 deliveries' worth of packets are as
// likely one more or one less, so the rate may be twice the sample, and at 90% of the queue's
// 10000 pps the plan takes the queue's. Counted over the whole window the same figure stands.
TEST(CoalescePolicyTest, ASocketsRateSampledBrieflyIsPlannedAtWhatTheSampleAllows) {
  for (const double share : {0.005, 1.0}) {
    const Recommendation usecs = SampledSocketRxUsecs(2500, 20000, 800, 12890, share);
    if (share < 1) {
      EXPECT_THAT(usecs.formula,
                  HasSubstr("T_fill = 31.25 / 10000 pps (the queue's rx rate: the socket's "
                            "sampled 6445 pps, 64 packets seen over 0.5% of the window in clumps "
                            "of 16, may be up to 12890 pps)"));
      // (1 - 0.05) * 31.25 / 10000 pps = 2968.75 us
      EXPECT_LE(usecs.recommended, 2969) << usecs.formula;
    } else {
      EXPECT_THAT(usecs.formula, HasSubstr("T_fill = 31.25 / 6445 pps = "));
      EXPECT_GT(usecs.recommended, 4000) << usecs.formula;
    }
  }
}

// The emulated NIC at 4500 us, its socket dropping 116 packets in the window (the kernel's count)
// while the probe's slots, over 5% of it, saw none of its packets, with `stall_s` of stalled
// delivery.
Observation UnseenSampleWindow(double stall_s) {
  Observation obs = EmulatedNicWindow(4500, 116, stall_s);
  QueueObservation& q = obs.queues[0];
  q.rx_packets = 20000;
  q.interrupts = 888;
  q.sockets[0].packets = 116;
  q.sockets[0].arrivals_share = 0.05;
  return obs;
}

// UnseenSampleWindow: the socket's 58 pps are its drops alone, no sample of its rate. Taken for
// 5.8 packets seen, they bounded the socket at 518 pps, whose 31.25 packets would take 60 ms to
// fill; the plan takes the queue's 10000 pps.
TEST(CoalescePolicyTest, ASampleThatSawNoneOfTheSocketsPacketsTakesTheQueuesRate) {
  const Recommendation usecs =
      RecommendationFor(UnseenSampleWindow(0), PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_THAT(usecs.formula,
              HasSubstr("T_fill = 31.25 / 10000 pps (the queue's rx rate, the most that can "
                        "have arrived: none of the socket's packets fell in the probe's slots, 5% "
                        "of the window)"));
  // (1 - 0.05) * 31.25 / 10000 pps = 2968.75 us
  EXPECT_LE(usecs.recommended, 2969) << usecs.formula;
}

// The same socket's drops against the queue's stalls: at the queue's rate its slots planned it at,
// 11.7 ms of stalled delivery brought 117 of its packets late, which explain its 116 drops; its
// drops alone taken for its arrivals would leave all of them beyond the stall. A socket whose
// slots saw nothing and which dropped nothing is no socket to plan for.
TEST(CoalescePolicyTest, TheStallsOfASampleThatSawNoneOfItsPacketsAreJudgedAtTheQueuesRate) {
  for (const double stall_s : {0.0117, 0.0}) {
    const Recommendation usecs =
        RecommendationFor(UnseenSampleWindow(stall_s), PolicyConfig{}, Knob::kRxUsecs);
    EXPECT_THAT(usecs.formula,
                HasSubstr(stall_s > 0 ? "no more than arrived in 11.70 ms of stalled delivery"
                                      : "sockets dropped at the current 4500 us"));
  }
  Observation idle = EmulatedNicWindow(4500, 0, 0);
  idle.queues[0].rx_packets = 20000;
  idle.queues[0].sockets[0].packets = 0;
  idle.queues[0].sockets[0].arrivals_share = 0.05;
  const Recommendation usecs = RecommendationFor(idle, PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_THAT(usecs.formula, Not(HasSubstr("T_fill"))) << usecs.formula;
}

// The other way: a 0.3% slot saw 144 packets in clumps of 69 and read 23981 pps of a device that
// received 10000. That many clumps may stray past the device's rate: the socket is planned at it
// (planned at the sample, the interval went to 1304 us where 2900 us fit). A sample that sure to
// be above the device's rate is kept: the socket is fed by another device too.
TEST(CoalescePolicyTest, ASampleAboveTheDevicesRateThatMayBeItReadHighIsTheDevices) {
  ASSERT_LT(EmulatedNicWindow(2608, 0, 0).queues[0].queue, 0) << "a whole device";
  for (const double share : {0.003, 0.9}) {
    const Recommendation usecs = SampledSocketRxUsecs(2608, 20000, 694, 47962, share);
    if (share < 0.5) {
      EXPECT_THAT(usecs.formula,
                  HasSubstr("T_fill = 31.25 / 10000 pps (the device's rx rate: the socket's "
                            "sampled 23981 pps, 144 packets seen over 0.3% of the window in "
                            "clumps of 69, may be as low as 0 pps)"));
    } else {
      EXPECT_THAT(usecs.formula, HasSubstr("T_fill = 31.25 / 23981 pps = "));
    }
  }
}

// One of two sockets sharing a queue, a tenth of its 20000 pps, sampled over a fifth of the
// window: 800 packets seen one to a delivery may stray by 2 / sqrt(800) = 7%, so the socket is
// planned at 2141 pps, not at the queue's rate.
TEST(CoalescePolicyTest, ASampledSocketBelowTheQueuesRateIsPlannedAtItsBound) {
  const Recommendation usecs = SampledSocketRxUsecs(1000, 40000, 4000, 4000, 0.2);
  // 2000 * (1 + 2 * sqrt(1 / 800)) = 2141.4 pps
  EXPECT_THAT(usecs.formula,
              HasSubstr("T_fill = 31.25 / 2141 pps (the socket's sampled 2000 pps, 800 packets "
                        "seen over 20.0% of the window in clumps of 1, at its bound)"));
}

// A socket whose buffer size is unknown (rcvbuf 0: listed by /proc/net/udp, which has no size)
// is no zero-byte buffer that nothing fits: it leaves the plan as it was.
TEST(CoalescePolicyTest, ASocketOfUnknownBufferSizeIsLeftOutOfTheFillMath) {
  const Observation alone = Seed001();
  Observation with_unknown = Seed001();
  SocketObservation unknown = with_unknown.queues[0].sockets[0];
  unknown.name = "udp port 9000 (buffer size unknown)";
  unknown.rcvbuf_bytes = 0;
  with_unknown.queues[0].sockets.push_back(unknown);
  absl::StatusOr<std::vector<Recommendation>> expected = Recommend(alone, TenPercentMargin());
  absl::StatusOr<std::vector<Recommendation>> got = Recommend(with_unknown, TenPercentMargin());
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(got.ok()) << got.status();
  const Recommendation& usecs = Find(*got, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, Find(*expected, Knob::kRxUsecs).recommended) << usecs.formula;
  EXPECT_EQ(Find(*got, Knob::kRmemDefault).recommended,
            Find(*expected, Knob::kRmemDefault).recommended);
  EXPECT_THAT(usecs.formula, Not(HasSubstr("buffer size unknown")));
}

TEST(CoalescePolicyTest, RingLimitsTheIntervalForForwardedTraffic) {
  Observation obs = Seed001();
  obs.queues[0].sockets.clear();
  obs.queues[0].coalesce.adaptive_rx = false;
  obs.queues[0].coalesce.rx_ring_size = 256;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  // (1 - 0.1) * 256 / 812744 pps - 2 us (the interrupt's cost before the poll) = 281.48 us
  EXPECT_EQ(Find(*recs, Knob::kRxUsecs).recommended, 281);
}

// Seed 001 as a whole-device observation of four rings (procfs only) at four times the rate and
// the interrupts of four vectors.
Observation Seed001OverFourRings() {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  q.queue = -1;
  q.rx_rings = 4;
  q.rx_packets *= 4;
  q.interrupts *= 4;
  return obs;
}

// A whole-device observation of four queues (procfs only) at four times the rate: each ring takes
// a quarter of the packets, so the limit is the one ring's above, not a quarter of it.
TEST(CoalescePolicyTest, AWholeDeviceObservationsRingLimitIsOneRingsShare) {
  Observation obs = Seed001OverFourRings();
  QueueObservation& q = obs.queues[0];
  q.sockets.clear();
  q.coalesce.adaptive_rx = false;
  q.coalesce.rx_ring_size = 256;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, 281) << usecs.formula;
  EXPECT_THAT(usecs.formula,
              HasSubstr("/ 812744 pps (one ring's: the device's 3250976 pps over 4 rings, or a "
                        "socket's flow)"));
}

// The same four rings at a static 200 us: each vector interrupts 5000 times a second, 20000/s
// together. At the ring limit's 281 us they interrupt about 3559/s each, 14235/s together: the
// gain is the 29% that saves, not one vector's rate set against all four's.
TEST(CoalescePolicyTest, AWholeDeviceObservationsInterruptsArePredictedForEveryVector) {
  Observation obs = Seed001OverFourRings();
  QueueObservation& q = obs.queues[0];
  q.sockets.clear();
  q.drops.socket = 0;
  q.interrupts = 4 * 5000 * 10;
  q.coalesce.adaptive_rx = false;
  q.coalesce.rx_usecs = 200;
  q.coalesce.rx_ring_size = 256;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, 281) << usecs.formula;
  EXPECT_NEAR(usecs.expected_gain, 1 - 200.0 / 281, 0.001) << usecs.expected_effect;
  EXPECT_THAT(usecs.expected_effect, HasSubstr("about 14235 interrupts/s (now 20000/s)"));
}

// Seed 001's socket behind one of four rings whose vectors interrupt 8000/s each under
// adaptive-rx, 32000/s together: each vector is below the socket's floor (1 / 82 us, about
// 12200/s) while it drops, so adaptive-rx goes off, though the four together are above it.
TEST(CoalescePolicyTest, AWholeDeviceObservationsAdaptiveRxIsJudgedPerVector) {
  const Observation obs = Seed001OverFourRings();
  const Recommendation adaptive = RecommendationFor(obs, PolicyConfig{}, Knob::kAdaptiveRx);
  EXPECT_EQ(adaptive.recommended, 0) << adaptive.formula;
  EXPECT_THAT(adaptive.formula, HasSubstr("interrupt rate 8000/s per vector (32000/s over 4)"));
}

// Without a handler time, an interrupt's cost is the hard IRQ time over the interrupts: the split
// is the mean of the serving CPUs, so their hard IRQ time together is the mean times their count.
TEST(CoalescePolicyTest, TheHardIrqShareFallbackCountsEveryServingCpu) {
  for (const uint32_t cpus : {1u, 4u}) {
    Observation obs = Seed001();
    QueueObservation& q = obs.queues[0];
    q.interrupt_cost_s = 0;
    q.serving_cpus = cpus;
    q.cpu.hardirq = 0.02;             // 2% of each CPU
    q.interrupts = 8000 * cpus * 10;  // 8000/s on each
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
    // 0.02 * cpus / (8000 * cpus) = 2.5 us either way; floor 2.5 us / 0.1 = 25 us.
    EXPECT_THAT(usecs.formula, HasSubstr("cost floor = 2.50 us / 0.1 = 25.00 us")) << cpus;
  }
}

TEST(DeferPolicyTest, WithoutHardwareModerationDeferralTakesOver) {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  q.coalesce = CoalesceState{};  // veth-like: no rx-usecs
  q.defer.supported = true;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, TenPercentMargin());
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_FALSE(Has(*recs, Knob::kRxUsecs));
  const Recommendation& timeout = Find(*recs, Knob::kGroFlushTimeout);
  EXPECT_EQ(timeout.recommended, 78'000);  // ns: the same 78 us interval
  EXPECT_EQ(timeout.scope, Scope::kDevice);
  EXPECT_EQ(timeout.target, "eth0");
  // 63.39 packets per interval: ceil(4.605 / 63.39) = 1 empty poll re-arms the interrupt.
  EXPECT_EQ(Find(*recs, Knob::kNapiDeferHardIrqs).recommended, 1);
}

// The software timer as the hardware's interval: a shorter gro_flush_timeout is as sure as the
// window's measurements where the slots missed the drain gaps, a longer one is not.
TEST(DeferPolicyTest, AnUnseenDrainGapDoesNotHoldAShorterTimeout) {
  for (const uint64_t current_ns : {200'000u, 20'000u}) {
    Observation whole = Seed001();
    QueueObservation& q = whole.queues[0];
    q.coalesce = CoalesceState{};  // veth-like: no rx-usecs
    q.defer = {.supported = true, .napi_defer_hard_irqs = 1, .gro_flush_timeout_ns = current_ns};
    q.sockets[0].drops = 0;  // drops at the current timeout would cap the plan below it
    q.drops.socket = 0;
    Observation slotted = whole;
    slotted.queues[0].sockets[0].drain_gap_seen_below_s = 20e-6;
    absl::StatusOr<std::vector<Recommendation>> seen = Recommend(whole, TenPercentMargin());
    absl::StatusOr<std::vector<Recommendation>> missed = Recommend(slotted, TenPercentMargin());
    ASSERT_TRUE(seen.ok()) << seen.status();
    ASSERT_TRUE(missed.ok()) << missed.status();
    const Recommendation& timeout = Find(*missed, Knob::kGroFlushTimeout);
    const double measured = Find(*seen, Knob::kGroFlushTimeout).confidence.value;
    if (current_ns == 200'000) {
      EXPECT_LT(timeout.recommended, timeout.current) << timeout.formula;
      EXPECT_DOUBLE_EQ(timeout.confidence.value, measured) << timeout.confidence.reason;
      EXPECT_THAT(timeout.confidence.reason, HasSubstr("would only shorten it further"));
    } else {
      EXPECT_GT(timeout.recommended, timeout.current) << timeout.formula;
      EXPECT_NEAR(timeout.confidence.value, 0.7 * measured, 1e-9) << timeout.confidence.reason;
    }
  }
}

TEST(DeferPolicyTest, LowRateNeedsMoreEmptyPollsOrNoDeferral) {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  q.coalesce = CoalesceState{};
  q.defer.supported = true;
  q.rx_packets = 2000 * 10;  // 2 kpps
  q.sockets[0].packets = q.rx_packets;
  q.sockets[0].drops = q.drops.socket = 0;
  q.interrupts = q.rx_packets;
  PolicyConfig config;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, config);
  ASSERT_TRUE(recs.ok()) << recs.status();
  // u = floor(0.9 * 71.14 / 2000 s) = 32012 us, above the 10 ms cap: 10000 us, 20 packets per
  // interval, ceil(4.605 / 20) = 1.
  EXPECT_EQ(Find(*recs, Knob::kGroFlushTimeout).recommended, 10'000'000);
  EXPECT_EQ(Find(*recs, Knob::kNapiDeferHardIrqs).recommended, 1);
  q.rx_packets = 30 * 10;  // 30 pps: 0.3 packets per 10 ms, n = 16
  q.sockets[0].packets = q.interrupts = q.rx_packets;
  recs = Recommend(obs, config);
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_EQ(Find(*recs, Knob::kNapiDeferHardIrqs).recommended, 16);
  q.rx_packets = 1 * 10;  // 1 pps: n = 461 > 100: deferral off
  q.sockets[0].packets = q.interrupts = q.rx_packets;
  recs = Recommend(obs, config);
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_EQ(Find(*recs, Knob::kNapiDeferHardIrqs).recommended, 0);
  EXPECT_EQ(Find(*recs, Knob::kGroFlushTimeout).recommended, 0);
}

TEST(RecommendTest, RejectsAWrappedCounterNamingIt) {
  Observation obs = Seed001();
  obs.queues[0].interrupts = UINT64_MAX - 5;  // u32 counter that went backwards, read as u64
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_FALSE(recs.ok());
  EXPECT_THAT(recs.status().message(),
              HasSubstr("observation eth0 rx 0: interrupts = 18446744073709551610 over 10s"));
  EXPECT_THAT(recs.status().message(), HasSubstr("wrapped counter"));
}

TEST(RecommendTest, RejectsNaNShares) {
  Observation obs = Seed001();
  obs.queues[0].cpu.softirq = std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_FALSE(recs.ok());
  EXPECT_THAT(recs.status().message(), HasSubstr("cpu.softirq = nan"));
}

// Seed 001's socket with a buffer that would let the interval reach the driver's 1022 us, behind
// a ring of 64 descriptors, which 812744 pps fill in 75 us: 72 us with an interrupt's 2 us.
Observation Seed001BehindASmallRing() {
  Observation obs = Seed001();
  QueueObservation& q = obs.queues[0];
  q.sockets[0].rcvbuf_bytes = 64 * 1024 * 1024;
  q.sockets[0].drops = 0;
  q.drops.socket = 0;
  q.coalesce.adaptive_rx = false;
  q.coalesce.rx_usecs = 72;
  q.coalesce.rx_ring_size = 64;
  return obs;
}

// Where the sockets, not the ring, hold the interval short, the ring is kept as it is.
TEST(RingPolicyTest, ARingThatHoldsWhatTheSocketsAllowIsKept) {
  const Recommendation ring = RecommendationFor(Seed001(), PolicyConfig{}, Knob::kRxRing);
  EXPECT_EQ(ring.recommended, 512) << ring.formula;
  EXPECT_EQ(ring.scope, Scope::kDevice);
  EXPECT_EQ(ring.target, "eth0");
  EXPECT_THAT(ring.formula, HasSubstr("ring limit = (1 - 0.05) * 512 / 812744 pps - 2.00 us = "
                                      "596.47 us; the device's sockets allow 82 us (the ring not "
                                      "counted): the ring holds it -> keep rx ring 512"));
}

// The ring holds the interval to 72 us where the socket allows 1022: it grows to the descriptors
// 1022 us bring, an interrupt's cost later, within the margin; the interrupts it saves are the
// gain, 2.6% of a CPU at 2 us each.
TEST(RingPolicyTest, ARingThatHoldsTheIntervalShortGrowsToWhatTheSocketsAllow) {
  const Observation obs = Seed001BehindASmallRing();
  const Recommendation usecs = RecommendationFor(obs, PolicyConfig{}, Knob::kRxUsecs);
  EXPECT_EQ(usecs.recommended, 72) << usecs.formula;
  const Recommendation ring = RecommendationFor(obs, PolicyConfig{}, Knob::kRxRing);
  EXPECT_EQ(ring.current, 64);
  EXPECT_EQ(ring.recommended, 877) << ring.formula;  // ceil(812744 * 1024e-6 / 0.95) = 877
  EXPECT_THAT(ring.formula, HasSubstr("the device's sockets allow 1022 us (the ring not counted); "
                                      "ring = ceil(812744 pps * (1022 us + 2.00 us) / (1 - 0.05)) "
                                      "= 877 descriptors, at most 8192 (the tuner's) -> rx ring "
                                      "877"));
  EXPECT_NEAR(ring.expected_gain, 1 - 72.0 / 1022, 1e-9);
  EXPECT_THAT(ring.expected_effect,
              HasSubstr("the interval can reach 1022 us, 93% fewer interrupts than at 72 us (2.6% "
                        "of a CPU)"));
  EXPECT_TRUE(ring.unresolved.empty()) << ring.unresolved;
}

// The same ring behind a socket that allows about 100 us: growing it would save 0.8% of a CPU,
// which is not worth restarting the device's queues.
TEST(RingPolicyTest, ARingIsNotGrownForLessThanItsCpuSaving) {
  Observation obs = Seed001BehindASmallRing();
  obs.queues[0].sockets[0].rcvbuf_bytes = 255590;  // 85.37 packets
  const Recommendation ring = RecommendationFor(obs, PolicyConfig{}, Knob::kRxRing);
  EXPECT_EQ(ring.recommended, 64) << ring.formula;
  EXPECT_THAT(ring.formula, HasSubstr("of a CPU in interrupts, below 1%, which is not worth "
                                      "restarting the device's queues -> keep rx ring 64"));
}

// A driver whose largest ring is below the need gets its largest, and a person is told the rest;
// one whose largest is below the tuner's smallest keeps its ring, and says so.
TEST(RingPolicyTest, ARingAtTheDriversMaximumLeavesTheRestToAPerson) {
  Observation obs = Seed001BehindASmallRing();
  obs.queues[0].coalesce.rx_ring_max = 700;
  Recommendation ring = RecommendationFor(obs, PolicyConfig{}, Knob::kRxRing);
  EXPECT_EQ(ring.recommended, 700) << ring.formula;
  EXPECT_THAT(ring.formula, HasSubstr("at most 700 (the driver's maximum or the tuner's)"));
  EXPECT_THAT(ring.unresolved, HasSubstr("the largest ring, 700 descriptors, holds 816.22 us at "
                                         "812744 pps, below the 1022 us the device's sockets "
                                         "allow"));
  obs.queues[0].coalesce.rx_ring_size = 16;
  obs.queues[0].coalesce.rx_ring_max = 32;
  ring = RecommendationFor(obs, PolicyConfig{}, Knob::kRxRing);
  EXPECT_EQ(ring.recommended, 16) << ring.formula;
  EXPECT_THAT(
      ring.unresolved,
      HasSubstr("the driver's largest ring, 32 descriptors, is below the tuner's smallest"));
}

// A ring that overflows at the cost floor (300 us an interrupt: 3000 us) grows until it holds it,
// and the drops it ends are the gain.
TEST(RingPolicyTest, ARingThatOverflowsAtTheCostFloorGrows) {
  Observation obs = EmulatedNicWindow(2111, 0, 0);
  QueueObservation& q = obs.queues[0];
  q.rx_packets = 20000;
  q.interrupt_cost_s = 300e-6;
  q.coalesce.rx_ring_size = 16;  // 0.95 * 16 / 10000 pps - 300 us = 1220 us
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_THAT(usecs.unresolved, HasSubstr("ring overrun"));
  const Recommendation& ring = Find(*recs, Knob::kRxRing);
  const double held_us = (1 - 0.05) * static_cast<double>(ring.recommended) / 10000 * 1e6 - 300;
  EXPECT_GT(ring.recommended, 16) << ring.formula;
  EXPECT_GE(held_us, static_cast<double>(usecs.recommended)) << ring.formula;
  EXPECT_EQ(ring.expected_gain, 1.0);
  EXPECT_THAT(ring.expected_effect, HasSubstr("it stops overflowing"));
}

// A ring that overflowed at the current 2111 us, which the model's 10000 pps say it holds: the
// overflow proves 256 descriptors came within 2113 us, and the ring grows for that rate over the
// interval the socket allows, where rx-usecs is held below the current one for the drops.
TEST(RingPolicyTest, ARingThatDroppedGrowsForTheRateItsOverflowProves) {
  const Recommendation ring =
      RecommendationFor(RingDroppingWindow(2111, 0), PolicyConfig{}, Knob::kRxRing);
  EXPECT_GT(ring.recommended, 256) << ring.formula;
  EXPECT_THAT(ring.formula, HasSubstr("(256 descriptors overflowed within the current 2111 us + "
                                      "2.00 us)"));
  EXPECT_EQ(ring.expected_gain, 1.0);
}

// Two queues of one device whose rings both hold the interval short: the device runs at the
// stricter queue's socket's interval, so the ring is sized for that one, once for the device.
TEST(RingPolicyTest, ADevicesRingHoldsItsStrictestQueuesInterval) {
  Observation obs = Seed001BehindASmallRing();
  QueueObservation second = obs.queues[0];
  second.queue = 1;
  second.sockets[0].name = "udp 0.0.0.0:12866";
  second.sockets[0].rcvbuf_bytes = 1277952;  // 426.8 packets: about 498 us
  obs.queues.push_back(second);
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  int rings = 0;
  for (const Recommendation& r : *recs) rings += r.knob == Knob::kRxRing ? 1 : 0;
  EXPECT_EQ(rings, 1);
  const Recommendation& ring = Find(*recs, Knob::kRxRing);
  EXPECT_GT(ring.recommended, 64) << ring.formula;
  EXPECT_LT(ring.recommended, 877) << ring.formula;  // not the 1022 us the first queue allows
  EXPECT_THAT(ring.formula, Not(HasSubstr("allow 1022 us")));
}

// A full ring delivers what it holds: 32 descriptors at 8000 us passed 7888 packets in 2 s while
// 12000 more were missed. What comes is both, 9944 pps, and the interval the ring holds is
// counted at that rate, not at the 3944 pps received (at which 8000 us would seem to fit).
TEST(RingPolicyTest, TheRingsRateCountsWhatItMissed) {
  Observation obs = EmulatedNicWindow(8000, 0, 0);
  QueueObservation& q = obs.queues[0];
  q.sockets.clear();
  q.rx_packets = 7888;
  q.drops.ring = 12000;
  q.coalesce.rx_ring_size = 32;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const Recommendation& usecs = Find(*recs, Knob::kRxUsecs);
  EXPECT_THAT(usecs.formula, HasSubstr("ring limit = (1 - 0.05) * 32 / 9944 pps (arriving: 7888 "
                                       "received and 12000 missed)"));
  EXPECT_LE(usecs.recommended, 3055) << usecs.formula;  // 0.95 * 32 / 9944 pps - 2 us
  const Recommendation& ring = Find(*recs, Knob::kRxRing);
  EXPECT_GE(static_cast<double>(ring.recommended),
            9944 * static_cast<double>(usecs.recommended) * 1e-6)
      << ring.formula;
}

// A queue whose ring size the driver does not report gets no ring recommendation.
TEST(RingPolicyTest, AnUnknownRingGetsNone) {
  Observation obs = Seed001();
  obs.queues[0].coalesce.rx_ring_size = 0;
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  for (const Recommendation& r : *recs) EXPECT_NE(r.knob, Knob::kRxRing) << r.formula;
}

}  // namespace
}  // namespace nictune::tuner
