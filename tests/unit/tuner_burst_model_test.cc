// SPDX-License-Identifier: Apache-2.0
// The burst model (tuner/burst_model.h) against arithmetic done by hand, and against the
// simulator where the model makes a claim the fill math did not: a drain gap shorter than the
// interval costs nothing, and a reader on the softirq's CPU sees the cycle stretched by
// 1 / (1 - rate * packet cost).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"
#include "tuner/burst_model.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {
namespace {

TEST(BurstModelTest, OwnCpuReaderHoldsOneIntervalOfArrivals) {
  // 65.02 packets' worth in 80 us: the timer's first packet and the 65 after it.
  const Burst b = BurstAt({.socket_rate_pps = 812744, .queue_rate_pps = 812744}, 80e-6);
  EXPECT_FALSE(b.saturated);
  EXPECT_DOUBLE_EQ(b.cycle_s, 80e-6);
  EXPECT_NEAR(b.packets_per_cycle, 65.02, 0.01);
  EXPECT_EQ(b.deliveries_per_gap, 1);
  EXPECT_EQ(b.packets_held, 66);
}

// Seed 001 in whole packets: the socket holds 71 of truesize 2994, a delivery at 87 us is 71
// (70.71 packets' worth), at 88 us 72; the simulator is drop-free up to 87 and drops from 88
// (tests/unit/sim_seed001_test.cc).
TEST(BurstModelTest, Seed001FitsUpTo87UsInWholePackets) {
  const double usable = UsablePackets(212992.0 / 2994, 0);
  const BurstInputs in{.socket_rate_pps = 812744, .queue_rate_pps = 812744};
  EXPECT_LE(BurstAt(in, 87e-6).packets_held, usable);
  EXPECT_GT(BurstAt(in, 88e-6).packets_held, usable);
}

// 5 Mpps for 20 us is exactly 100 packets' spacing: the timer's packet and the 100 after it, the
// last due as the timer ends (20 us as the planner computes it, 20 * 1e-6, times 5e6 is
// 99.99999999999999 in floating point, whose floor said 100). The simulator, whose times are whole
// nanoseconds, delivers 101.
TEST(BurstModelTest, APacketDueAsTheTimerEndsIsInTheDelivery) {
  const BurstInputs in{.socket_rate_pps = 5e6, .queue_rate_pps = 5e6};
  const double twenty_us = 20 * 1e-6;
  ASSERT_LT(5e6 * twenty_us, 100);
  EXPECT_EQ(BurstAt(in, twenty_us).packets_held, 101);
  SimScenario s;
  s.arrivals.rate_pps = 5e6;
  s.frame.truesize_bytes = 2994;
  s.ring_size = 4096;
  s.moderation.fixed.rx_usecs = 20;
  s.app.placement = AppPlacement::kSameCpuAsSoftirq;
  s.duration_ns = 10'000'000;
  for (const int64_t packets : {100, 101}) {
    s.rcvbuf_bytes = packets * 2994;
    absl::StatusOr<SimResult> r = Simulate(s);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->socket_drops > 0, packets == 100) << packets << " packets";
    EXPECT_EQ(r->peak_packets_per_interrupt, 101u);
  }
}

TEST(BurstModelTest, WaitingReaderSeesTheStretchedCycle) {
  // 2 Mpps at 0.1 us per packet: load 0.2; cycle (40 + 1.2) / 0.8 = 51.5 us; 103 packets.
  const Burst b = BurstAt({.socket_rate_pps = 2e6,
                           .queue_rate_pps = 2e6,
                           .packet_cost_s = 0.1e-6,
                           .interrupt_cost_s = 1.2e-6,
                           .reader_waits_for_napi = true},
                          40e-6);
  EXPECT_NEAR(b.softirq_load, 0.2, 1e-12);
  EXPECT_NEAR(b.cycle_s * 1e6, 51.5, 1e-9);
  EXPECT_NEAR(b.packets_per_cycle, 103, 1e-6);
  EXPECT_EQ(b.packets_held, 104);
}

TEST(BurstModelTest, GapCountsTheDeliveriesItOverlaps) {
  const BurstInputs in{.socket_rate_pps = 10'000, .queue_rate_pps = 10'000, .drain_gap_s = 2e-3};
  // Shorter than the interval, or as long: deliveries of 21 packets 2.1 ms apart, so a 2 ms gap
  // sees at most one complete.
  EXPECT_EQ(BurstAt(in, 3e-3).deliveries_per_gap, 1);
  EXPECT_EQ(BurstAt(in, 2e-3).deliveries_per_gap, 1);
  EXPECT_EQ(BurstAt(in, 2e-3).packets_held, 21);  // one delivery, as without a gap
  // 0.5 ms brings 5 packets' worth, a delivery 6 whole packets 0.6 ms apart: 1 + floor(2 / 0.6)
  // = 4 deliveries of 6.
  const Burst b = BurstAt(in, 0.5e-3);
  EXPECT_EQ(b.packets_per_delivery, 6);
  EXPECT_NEAR(b.delivery_s, 0.6e-3, 1e-15);
  EXPECT_EQ(b.deliveries_per_gap, 4);
  EXPECT_EQ(b.packets_held, 24);
}

// The 20 kpps scenario of the two tests below: a reader on the softirq's CPU behind a 2 ms gap
// once per 20 ms, at a random phase, for 32 gaps.
SimResult RunBehindGap(double rate_pps, int64_t truesize, int64_t rx_usecs,
                       const ArrivalConfig& arrivals = {}, uint64_t seed = 1) {
  SimScenario s;
  s.seed = seed;
  s.arrivals = arrivals;
  s.arrivals.rate_pps = rate_pps;
  s.frame.truesize_bytes = truesize;
  s.ring_size = 1024;
  s.moderation.fixed.rx_usecs = rx_usecs;
  s.cost = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 100};
  s.rcvbuf_bytes = 64 << 20;
  s.app = {.placement = AppPlacement::kSameCpuAsSoftirq,
           .gap_ns = 2'000'000,
           .gap_period_ns = 20'000'000};
  s.duration_ns = 32 * s.app.gap_period_ns;
  absl::StatusOr<SimResult> r = Simulate(s);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SimResult{};
}

// A reader on the softirq's CPU behind a 2 ms gap, the matrix's costs (0.1 us per packet and 0.2
// per poll of 64: 0.103125 us; 1.2 us per interrupt), socket and queue at rate_pps.
BurstInputs ReaderBehindGap(double rate_pps) {
  return {.socket_rate_pps = rate_pps,
          .queue_rate_pps = rate_pps,
          .packet_cost_s = 0.103125e-6,
          .interrupt_cost_s = 1.2e-6,
          .drain_gap_s = 2e-3,
          .reader_waits_for_napi = true};
}

// Under one packet per cycle the timer starts at a packet, so the cycles a gap overlaps are not
// back to back: each packet is its own delivery. 20 kpps at 12 us, 0.103125 us per packet, 1.2 us
// per interrupt: load 0.0020625, cycle 13.2 / 0.9979375 = 13.2273 us (0.26 packets); a packet
// every 50 us, 1 + floor(2001.23 / 50) = 41 deliveries of one packet complete in a 2 ms gap and
// the softirq after it (a delivery per 13 us cycle said 152).
TEST(BurstModelTest, SparseCyclesDeliverAPacketEach) {
  const BurstInputs in = ReaderBehindGap(20'000);
  const Burst b = BurstAt(in, 12e-6);
  EXPECT_NEAR(b.cycle_s * 1e6, 13.2273, 1e-4);
  EXPECT_NEAR(b.packets_per_cycle, 0.26455, 1e-5);
  EXPECT_EQ(b.packets_per_delivery, 1);
  EXPECT_EQ(b.deliveries_per_gap, 41);
  EXPECT_EQ(b.packets_held, 41);

  // The simulator over 32 gaps at random phases: the socket holds the gap's 40 packets and at
  // most one more.
  const SimResult r = RunBehindGap(20'000, 2304, 12);
  EXPECT_GE(r.peak_socket_bytes / 2304, 40);
  EXPECT_LE(static_cast<double>(r.peak_socket_bytes / 2304), b.packets_held);
}

// Dense cycles deliver whole packets: 10 kpps at 1000 us, cycle 1002.23 us, 10.02 packets' worth,
// so 11 packets a delivery and 2 deliveries in a 2 ms gap: 22 whole packets, as the simulator
// holds. Counting 10.02 a cycle said 20.04, and a buffer of 21.78 packets (planned at margin
// 0.08) dropped in the simulator.
TEST(BurstModelTest, DenseCyclesDeliverWholePackets) {
  const BurstInputs in = ReaderBehindGap(10'000);
  const Burst b = BurstAt(in, 1000e-6);
  EXPECT_NEAR(b.packets_per_cycle, 10.02, 0.01);
  EXPECT_EQ(b.packets_per_delivery, 11);
  EXPECT_EQ(b.deliveries_per_gap, 2);
  EXPECT_EQ(b.packets_held, 22);
  EXPECT_EQ(RunBehindGap(10'000, 12544, 1000).peak_socket_bytes / 12544,
            static_cast<int64_t>(b.packets_held));
}

// Bursts shorter than the gap: 1.6 Mpps for 1 ms in every 2 ms (812744 pps mean) behind a 2 ms
// gap at 420 us. What piles up arrives within a 506.02 us cycle before the gap, the gap and
// 86.02 us of softirq after it, 2592.05 us, of which the bursts fill at most 1000 + 592.05 us:
// 2588 packets. The peak over the whole span, 5 deliveries of 823 packets (4115), is more than an
// 8 MiB buffer's 3276.8 usable. Measured instead of the bursts' shape, the most packets in any
// 2 ms (1627: a 1 ms burst and the ends of two) bound it alike: 1627 + the 592.05 us of cycle and
// softirq around the gap, 963 packets at the peak: 2590.
TEST(BurstModelTest, BurstsShorterThanTheGapFillOnlyTheirShare) {
  BurstInputs in = ReaderBehindGap(1'625'488);
  const Burst unbounded = BurstAt(in, 420e-6);
  EXPECT_FALSE(unbounded.held_by_bursts);
  EXPECT_EQ(unbounded.deliveries_per_gap, 5);
  EXPECT_EQ(unbounded.packets_held, 4115);
  in.burst_s = 1e-3;
  in.burst_pause_s = 1e-3;
  const Burst b = BurstAt(in, 420e-6);
  EXPECT_TRUE(b.held_by_bursts);
  EXPECT_NEAR(b.span_s * 1e6, 2592.05, 0.01);
  EXPECT_NEAR(b.bursting_s * 1e6, 1592.05, 0.01);
  EXPECT_EQ(b.packets_held, 2588);
  BurstInputs counted = ReaderBehindGap(1'625'488);
  counted.max_packets_per_gap = 1627;
  const Burst by_count = BurstAt(counted, 420e-6);
  EXPECT_TRUE(by_count.held_by_bursts);
  EXPECT_EQ(by_count.packets_held, 2590);
  counted.burst_s = in.burst_s;
  counted.burst_pause_s = in.burst_pause_s;
  EXPECT_EQ(BurstAt(counted, 420e-6).packets_held, 2588);  // the tighter of the two
  // Within one period the span is the burst and what fits of it; beyond, whole bursts first.
  EXPECT_NEAR(BurstingWithin(in, 0.5e-3), 0.5e-3, 1e-15);
  EXPECT_NEAR(BurstingWithin(in, 1.5e-3), 1e-3, 1e-15);
  EXPECT_NEAR(BurstingWithin(in, 4.5e-3), 2.5e-3, 1e-15);
  in.burst_s = 0;
  EXPECT_NEAR(BurstingWithin(in, 4.5e-3), 4.5e-3, 1e-15);
  in.burst_s = 1e-320;  // the span over a denormal overflows: no bound
  in.burst_pause_s = 0;
  EXPECT_NEAR(BurstingWithin(in, 4.5e-3), 4.5e-3, 1e-15);
  in.burst_pause_s = 1e-3;

  // The simulator, 32 gaps at random phases for each of 8 seeds: drop-free, and the socket holds
  // the gap's bursts and more, within the model's bound.
  ArrivalConfig bursts;
  bursts.pattern = ArrivalPattern::kOnOff;
  bursts.on_ns = 1'000'000;
  bursts.off_ns = 1'000'000;
  int64_t peak_packets = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const SimResult r = RunBehindGap(812'744, 2304, 420, bursts, seed);
    EXPECT_EQ(r.socket_drops, 0u) << "seed " << seed;
    peak_packets = std::max(peak_packets, r.peak_socket_bytes / 2304);
  }
  EXPECT_GT(peak_packets, 1626);
  EXPECT_LE(static_cast<double>(peak_packets), b.packets_held);
  EXPECT_LE(static_cast<double>(peak_packets), by_count.packets_held);
}

TEST(BurstModelTest, SaturatedLoadHasNoBound) {
  const Burst b = BurstAt({.socket_rate_pps = 4e6,
                           .queue_rate_pps = 4e6,
                           .packet_cost_s = 0.3e-6,
                           .reader_waits_for_napi = true},
                          10e-6);
  EXPECT_TRUE(b.saturated);
  EXPECT_TRUE(std::isinf(b.packets_held));
}

TEST(BurstModelTest, WholePacketsAndTheInverse) {
  // Held packets are whole: a socket fits what its usable share holds of them.
  EXPECT_NEAR(UsablePackets(71.14, 0), 71.14, 1e-12);  // seed 001: 71 whole packets fit
  EXPECT_NEAR(UsablePackets(71.14, 0.1), 64.026, 1e-9);
  EXPECT_NEAR(UsablePackets(5.9, 0.1), 5.31, 1e-12);  // 5 whole packets
  EXPECT_LT(UsablePackets(0.8, 0.1), 1);               // not even one
  for (double packets : {1.0, 5.0, 64.0, 1000.0}) {
    const double rcvbuf = RcvbufForPackets(packets, 2304, 0.1);
    EXPECT_GE(UsablePackets(rcvbuf / 2304, 0.1), packets - 1e-9) << packets;
    EXPECT_GE(std::floor(rcvbuf / 2304), packets) << packets;  // the kernel takes them all
  }
  EXPECT_EQ(RcvbufForPackets(71, 2994, 0), 71 * 2994);
}

SimResult RunStatic(int64_t rx_usecs, int64_t gap_us, int64_t packet_ns) {
  SimScenario s;
  s.arrivals.rate_pps = 812744;
  s.frame.truesize_bytes = 2994;
  s.ring_size = 4096;
  s.moderation.fixed.rx_usecs = rx_usecs;
  s.cost = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = packet_ns};
  s.rcvbuf_bytes = 212992;
  s.app.placement = AppPlacement::kSameCpuAsSoftirq;
  if (gap_us > 0) {
    s.app.gap_ns = gap_us * 1000;
    s.app.gap_period_ns = 1'000'000;
  }
  s.duration_ns = 50'000'000;
  absl::StatusOr<SimResult> r = Simulate(s);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SimResult{};
}

// Where the model and the fill math disagree, the simulator sides with the model.
TEST(BurstModelTest, SimulatorAgreesWhereTheFillMathDiffers) {
  // A 30 us gap below a 60 us interval: the fill math's u + gap = 90 us predicts overflow (73
  // packets > 71); the model predicts one cycle of (60 + 1.2) / (1 - 0.08) us = 54 packets.
  const BurstInputs in{.socket_rate_pps = 812744,
                       .queue_rate_pps = 812744,
                       .packet_cost_s = 0.1e-6,
                       .interrupt_cost_s = 1.2e-6,
                       .drain_gap_s = 30e-6,
                       .reader_waits_for_napi = true};
  EXPECT_LE(BurstAt(in, 60e-6).packets_held, UsablePackets(212992.0 / 2994, 0));
  EXPECT_EQ(RunStatic(60, 30, 100).socket_drops, 0u);
  // 80 us with the packets' own cost: the fill math's 65 packets fit; the stretched cycle holds
  // (80 + 1.2) / (1 - 0.3) us = 94 packets, and the simulator drops.
  const BurstInputs slow{.socket_rate_pps = 812744,
                         .queue_rate_pps = 812744,
                         .packet_cost_s = 0.369e-6,
                         .interrupt_cost_s = 1.2e-6,
                         .reader_waits_for_napi = true};
  EXPECT_GT(BurstAt(slow, 80e-6).packets_held, UsablePackets(212992.0 / 2994, 0));
  EXPECT_GT(RunStatic(80, 0, 369).socket_drops, 0u);
}

}  // namespace
}  // namespace nictune::tuner
