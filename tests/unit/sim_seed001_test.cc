// SPDX-License-Identifier: Apache-2.0
// Seed 001 (ixgbe, Duyck 2015) in the simulator: rmem_default 212992, skb->truesize 2994,
// 1514-byte frames at 10 GbE line rate = 812744 pps. The socket holds 71 packets; one interrupt
// interval's burst must fit, so the interval must stay under ~87.5 us (12K ints/s = 84 us).
//
// "Drains only between interrupts": the reader shares the CPU that takes the interrupt and runs
// only when no hard IRQ or softirq work is pending, so every packet one interrupt's NAPI cycle
// delivers sits in the socket together before the reader can take any. Softirq costs are zero
// here, as the seed's arithmetic assumes; the burst is then exactly the packets that arrived
// between the timer start and the interrupt.
//
// The seed writes 87.9 us for the fill time, but its own numbers give 71.14 / 812744 pps =
// 87.53 us; the simulator agrees with 87.5: 87 us is the last drop-free whole rx-usecs value.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tuner/fill_math.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_sweep.h"

namespace nictune::tuner {
namespace {

constexpr double kRatePps = 812744;
constexpr int64_t kTruesize = 2994;
constexpr int64_t kRcvbuf = 212992;

SimScenario Seed001(int64_t rx_usecs) {
  SimScenario s;
  s.arrivals.pattern = ArrivalPattern::kConstant;
  s.arrivals.rate_pps = kRatePps;
  s.frame.frame_bytes = 1514;
  s.frame.truesize_bytes = kTruesize;
  s.rcvbuf_bytes = kRcvbuf;
  s.moderation.kind = ModerationKind::kStatic;
  s.moderation.fixed.rx_usecs = rx_usecs;
  s.app.placement = AppPlacement::kSameCpuAsSoftirq;
  s.duration_ns = 200'000'000;
  return s;
}

TEST(SimSeed001, SocketHoldsSeventyOnePacketsOfTruesize2994) {
  // A reader that never runs (off CPU for the whole run): the socket takes packets until the
  // kernel's rmem_alloc + truesize > rcvbuf check refuses them.
  SimScenario s = Seed001(1000);
  s.app.gap_period_ns = s.duration_ns;
  s.app.gap_ns = s.duration_ns;
  absl::StatusOr<SimResult> r = Simulate(s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->packets_enqueued, 71u);  // floor(212992 / 2994): 72 * 2994 = 215568 > 212992
  EXPECT_EQ(r->peak_socket_bytes, 71 * kTruesize);
  EXPECT_EQ(r->packets_read, 0u);
  EXPECT_GT(r->socket_drops, 0u);
}

TEST(SimSeed001, FillMathMatchesTheSeed) {
  absl::StatusOr<FillResult> fill =
      ComputeFill({.rate_pps = kRatePps, .truesize_bytes = kTruesize, .rcvbuf_bytes = kRcvbuf});
  ASSERT_TRUE(fill.ok()) << fill.status();
  EXPECT_NEAR(fill->capacity_packets, 71.14, 0.005);
  EXPECT_NEAR(fill->fill_time_s * 1e6, 87.53, 0.01);
}

class SimSeed001DropFree : public ::testing::TestWithParam<int64_t> {};

TEST_P(SimSeed001DropFree, NoDropsWhenOneIntervalFitsTheSocket) {
  absl::StatusOr<SimResult> r = Simulate(Seed001(GetParam()));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->socket_drops, 0u);
  EXPECT_EQ(r->ring_drops, 0u);
  EXPECT_LE(r->peak_packets_per_interrupt, 71u);
  EXPECT_GT(r->packets_read, 0u);
}

INSTANTIATE_TEST_SUITE_P(UpTo84Us, SimSeed001DropFree, ::testing::Values(10, 50, 70, 80, 84));

class SimSeed001Drops : public ::testing::TestWithParam<int64_t> {};

TEST_P(SimSeed001Drops, DropsWhenOneIntervalOverflowsTheSocket) {
  absl::StatusOr<SimResult> r = Simulate(Seed001(GetParam()));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->socket_drops, 0u);
  EXPECT_GT(r->peak_packets_per_interrupt, 71u);
  // Every interrupt overflows by the same amount: the burst beyond 71 packets.
  const double burst = kRatePps * static_cast<double>(GetParam()) * 1e-6;
  EXPECT_NEAR(r->socket_drops_per_s / r->interrupts_per_s, burst - 71, 1.5);
}

INSTANTIATE_TEST_SUITE_P(From100Us, SimSeed001Drops, ::testing::Values(100, 125, 150, 200, 500));

TEST(SimSeed001, EightyFourMicrosecondsIsAboutTwelveThousandInterruptsPerSecond) {
  absl::StatusOr<SimResult> r = Simulate(Seed001(84));
  ASSERT_TRUE(r.ok()) << r.status();
  // The timer starts at the first packet after the re-arm, so a cycle is 84 us plus the wait
  // for that packet (1.23 us): 1 / 85.2 us = 11.7K ints/s.
  EXPECT_GT(r->interrupts_per_s, 11'000);
  EXPECT_LT(r->interrupts_per_s, 12'000);
}

TEST(SimSeed001, LastDropFreeIntervalIsTheFillTime) {
  absl::StatusOr<SweepResult> sweep = SweepRxUsecs(Seed001(0), 80, 95, 1);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  ASSERT_TRUE(sweep->best.has_value());
  EXPECT_EQ(sweep->best->rx_usecs, 87);  // fill time 87.53 us
  for (const SweepPoint& p : sweep->points) {
    EXPECT_EQ(p.drops == 0, p.rx_usecs <= 87) << "rx_usecs " << p.rx_usecs;
  }
}

TEST(SimSeed001, SocketDropsGrowWithTheInterval) {
  uint64_t previous = 0;
  for (int64_t usecs : {90, 100, 150, 200, 300}) {
    absl::StatusOr<SimResult> r = Simulate(Seed001(usecs));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_GT(r->socket_drops, previous) << "rx_usecs " << usecs;
    previous = r->socket_drops;
  }
}

// The seed's result is throughput, not only a drop threshold: 1472-byte payloads (1514-byte
// frames) at 812744 pps are 9571 Mb/s at 10 GbE line rate. ixgbe's adaptive ITR without the 12K
// floor settles in its 8K bulk class (about 122 us here), where an interrupt delivers ~100
// packets into the 71-packet socket and the rest are dropped; with the floor (84 us) every one
// is read. The simulator gives 6818 -> 9571 Mb/s, 0.71 -> 1.00 of line rate. The seed measured
// 4135 -> 8508 Mb/s (0.43 -> 0.89) with 65507-byte messages, 45 IP fragments each, where one
// lost fragment loses the datagram; the simulator does not fragment, so its loss is per packet.
TEST(SimSeed001, TheTwelveThousandFloorRaisesThroughputToLineRate) {
  const auto received_mbps = [](int64_t bulk_usecs) {
    SimScenario s = Seed001(0);
    s.moderation.kind = ModerationKind::kIxgbeAdaptive;
    s.moderation.ixgbe.bulk_latency_usecs = bulk_usecs;
    absl::StatusOr<SimResult> r = Simulate(s);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return 0.0;
    return static_cast<double>(r->packets_read) * 1472 * 8 /
           (static_cast<double>(r->duration_ns) * 1e-9) / 1e6;
  };
  const double line_mbps = kRatePps * 1472 * 8 / 1e6;
  const double before = received_mbps(kIxgbeBulkLatencyBeforeSeed001Usecs);
  const double after = received_mbps(84);
  EXPECT_NEAR(before / line_mbps, 0.71, 0.02) << before << " Mb/s";
  EXPECT_GT(after / line_mbps, 0.995) << after << " Mb/s";
  EXPECT_GT(after / before, 1.35);
}

TEST(SimSeed001, AReaderOnItsOwnCpuDrainsDuringTheBurst) {
  // The same 200 us interval that drops between interrupts is fine for a reader on another CPU
  // that keeps up: the socket never has to hold the whole burst.
  SimScenario s = Seed001(200);
  s.app.placement = AppPlacement::kOwnCpu;
  s.app.read_ns = 1000;  // 1M datagrams/s > 812744 pps
  s.cost.packet_ns = 1000;
  absl::StatusOr<SimResult> r = Simulate(s);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->socket_drops, 0u);
  EXPECT_LT(r->peak_socket_fill, 0.5);
}

}  // namespace
}  // namespace nictune::tuner
