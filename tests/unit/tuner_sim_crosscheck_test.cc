// SPDX-License-Identifier: Apache-2.0
// The coalescing policy's choice checked against the simulator (tuner/sim_*), not against its own
// formula: on seed 001's numbers the recommended rx-usecs must run drop-free, and the 125 us of
// the old adaptive bulk class (8K ints/s) must drop, for a reader that drains only between
// interrupts (it shares the softirq's CPU). That reader waits for whole NAPI cycles, so the
// policy must stretch the cycle by the softirq load, 1 / (1 - rho): without that, 87 us and 78 us
// drop here.
#include <vector>

#include "gtest/gtest.h"
#include "tuner/recommend.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {
namespace {

Observation Seed001Observation() {
  Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  QueueObservation q;
  q.device = "eth0";
  SocketObservation s;
  s.name = "udp netserver";
  s.packets = 8'127'440;
  s.truesize_mean_bytes = 2994;
  s.rcvbuf_bytes = 212992;
  s.reader_shares_softirq_cpu = true;
  q.sockets.push_back(s);
  // What the simulator's CPU accounting shows for this load: 812744 pps * 300 ns per packet.
  q.cpu.softirq = 0.25;
  q.rx_packets = s.packets;
  q.interrupts = 80'000;
  q.interrupt_cost_s = 1.2e-6;  // the simulated hardirq + poll cost below
  q.coalesce.rx_usecs_supported = true;
  q.coalesce.rx_usecs_max = 1022;
  q.coalesce.rx_ring_size = 512;
  obs.queues.push_back(q);
  return obs;
}

SimResult SimulateStaticRxUsecs(int64_t rx_usecs) {
  SimScenario sc;
  sc.arrivals.pattern = ArrivalPattern::kConstant;
  sc.arrivals.rate_pps = 812744;
  sc.frame.truesize_bytes = 2994;
  sc.ring_size = 512;
  sc.moderation.kind = ModerationKind::kStatic;
  sc.moderation.fixed.rx_usecs = rx_usecs;
  sc.cost = {1000, 200, 300};
  sc.rcvbuf_bytes = 212992;
  sc.app.placement = AppPlacement::kSameCpuAsSoftirq;
  sc.app.read_ns = 300;
  sc.duration_ns = 200'000'000;
  absl::StatusOr<SimResult> r = Simulate(sc);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : SimResult{};
}

TEST(TunerSimCrossCheckTest, RecommendedIntervalIsDropFreeInTheSimulator) {
  // At margin 0 too: the cycle (u + the interrupt's hard IRQ and poll time) / (1 - rho) and
  // whole packets are the simulator's, so the choice is drop-free without a margin.
  for (double margin : {0.0, kDefaultMargin, 0.10}) {
    PolicyConfig config;
    config.margin = margin;
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(Seed001Observation(), config);
    ASSERT_TRUE(recs.ok()) << recs.status();
    int64_t rx_usecs = -1;
    for (const Recommendation& r : *recs) {
      if (r.knob == Knob::kRxUsecs) rx_usecs = r.recommended;
    }
    ASSERT_GT(rx_usecs, 0);
    const SimResult at_choice = SimulateStaticRxUsecs(rx_usecs);
    EXPECT_EQ(at_choice.socket_drops, 0u) << "margin " << margin << ", rx-usecs " << rx_usecs;
    EXPECT_EQ(at_choice.ring_drops, 0u);
    EXPECT_GT(at_choice.packets_arrived, 150'000u);
  }
  const SimResult old_bulk = SimulateStaticRxUsecs(125);
  EXPECT_GT(old_bulk.socket_drops, 0u);
}

}  // namespace
}  // namespace nictune::tuner
