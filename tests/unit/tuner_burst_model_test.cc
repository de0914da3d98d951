// The burst model (tuner/burst_model.h) against arithmetic done by hand, and against the
// simulator where the model makes a claim the fill math did not: a drain gap shorter than the
// interval costs nothing, and a reader on the softirq's CPU sees the cycle stretched by
// 1 / (1 - rate * packet cost).
#include <cmath>

#include "gtest/gtest.h"
#include "tuner/burst_model.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {
namespace {

TEST(BurstModelTest, OwnCpuReaderHoldsOneIntervalOfArrivals) {
  const Burst b = BurstAt({.socket_rate_pps = 812744, .queue_rate_pps = 812744}, 80e-6);
  EXPECT_FALSE(b.saturated);
  EXPECT_DOUBLE_EQ(b.cycle_s, 80e-6);
  EXPECT_NEAR(b.packets_per_cycle, 65.02, 0.01);
  EXPECT_EQ(b.cycles_per_gap, 1);
  EXPECT_NEAR(b.packets_held, 65.02, 0.01);
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
  EXPECT_NEAR(b.packets_held, 103, 1e-6);
}

TEST(BurstModelTest, GapCountsTheCyclesItOverlaps) {
  const BurstInputs in{.socket_rate_pps = 10'000, .queue_rate_pps = 10'000, .drain_gap_s = 2e-3};
  EXPECT_EQ(BurstAt(in, 3e-3).cycles_per_gap, 1);    // shorter than the interval
  EXPECT_EQ(BurstAt(in, 2e-3).cycles_per_gap, 2);    // as long: the end of one, start of next
  EXPECT_EQ(BurstAt(in, 0.5e-3).cycles_per_gap, 5);  // 2 + floor(1.5 / 0.5)
  EXPECT_NEAR(BurstAt(in, 0.5e-3).packets_held, 25, 1e-9);  // 5 cycles of 5 packets
}

// Under one packet per cycle the timer starts at a packet, so the cycles a gap overlaps are not
// back to back and most are empty: the gap holds the arrivals of its span, gap - u + 2 cycles,
// not one packet per cycle. 20 kpps at 12 us, 0.103125 us per packet, 1.2 us per interrupt:
// load 0.0020625, cycle 13.2 / 0.9979375 = 13.2273 us (0.26 packets); over a 2 ms gap
// 2 + 1988 / 13.2273 = 152.30 cycles, 20000 pps * 2014.45 us = 40.29 packets (a packet per
// cycle said 152).
TEST(BurstModelTest, SparseCyclesHoldTheGapsSpanNotAPacketEach) {
  const BurstInputs in{.socket_rate_pps = 20'000,
                       .queue_rate_pps = 20'000,
                       .packet_cost_s = 0.103125e-6,
                       .interrupt_cost_s = 1.2e-6,
                       .drain_gap_s = 2e-3,
                       .reader_waits_for_napi = true};
  const Burst b = BurstAt(in, 12e-6);
  EXPECT_NEAR(b.cycle_s * 1e6, 13.2273, 1e-4);
  EXPECT_NEAR(b.packets_per_cycle, 0.26455, 1e-5);
  EXPECT_NEAR(b.cycles_per_gap, 152.295, 1e-3);
  EXPECT_NEAR(b.packets_held, 20'000 * (2000 - 12 + 2 * 13.2273) * 1e-6, 1e-4);  // 40.29
  // Dense cycles still count whole: at 1000 us, 2 cycles of 1003.27 us x 20.07 packets.
  const Burst dense = BurstAt(in, 1000e-6);
  EXPECT_EQ(dense.cycles_per_gap, 2);
  EXPECT_NEAR(dense.packets_held, 40.13, 0.01);

  // The simulator over 32 gaps at random phases: the socket holds the gap's 40 packets and
  // at most one more, within the model's 40.29 rounded up.
  SimScenario s;
  s.arrivals.rate_pps = 20'000;
  s.frame.truesize_bytes = 2304;
  s.ring_size = 1024;
  s.moderation.fixed.rx_usecs = 12;
  s.cost = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 100};
  s.rcvbuf_bytes = 8 << 20;
  s.app = {.placement = AppPlacement::kSameCpuAsSoftirq,
           .gap_ns = 2'000'000,
           .gap_period_ns = 20'000'000};
  s.duration_ns = 32 * s.app.gap_period_ns;
  absl::StatusOr<SimResult> r = Simulate(s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->peak_socket_bytes / 2304, 40);
  EXPECT_LE(static_cast<double>(r->peak_socket_bytes / 2304), std::ceil(b.packets_held));
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
  EXPECT_NEAR(UsablePackets(71.14, 0), 71, 1e-12);  // seed 001: 71 whole packets
  EXPECT_NEAR(UsablePackets(71.14, 0.1), 64.026, 1e-9);
  EXPECT_NEAR(UsablePackets(5.9, 0.1), 4.9, 1e-12);  // 5.31 would let a 6th packet in
  EXPECT_LT(UsablePackets(0.8, 0.1), 0);
  for (double packets : {0.5, 4.9, 64.026, 1000.0}) {
    const double rcvbuf = RcvbufForPackets(packets, 2304, 0.1);
    EXPECT_GE(UsablePackets(rcvbuf / 2304, 0.1), packets - 1e-9) << packets;
  }
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
