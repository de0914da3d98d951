// SPDX-License-Identifier: Apache-2.0
// Seed 000 (freebsd-current, Oct 2001, Silbersack / Lambert): if_dc under a ~57000 pps SYN
// flood took ~46000 ints/s; with the patch that keeps the handler looping while rxeof still
// finds work it took ~38000 ints/s.
//
// The model's assumptions, stated so that the numbers can be checked:
// - Arrivals are Poisson at 57 kpps: a flood crossing a switch, not a perfectly paced stream
//   (with perfect pacing and a handler shorter than the 17.5 us spacing no two packets would
//   ever meet and looping could not save anything).
// - No hardware moderation (rx-usecs 0): the PNIC interrupts for every packet that finds the
//   interrupt enabled.
// - "One pass per interrupt" = NapiPollMode::kSinglePass: the handler takes the packets that
//   were in the ring when it started and re-enables the interrupt; a packet that came meanwhile
//   raises the next interrupt at once. "Keeps polling while work remains" =
//   NapiPollMode::kRepollWhileWork (Linux NAPI): only a packet that finds the ring empty and the
//   interrupt enabled costs an interrupt.
// - Costs on a Duron 600: 3 us per interrupt (entry, status read and ack, exit) and 3.5 us per
//   packet in the handler (dc_rxeof's copy and the hand-off to the netisr queue). The handler is
//   then busy about a third of the time. The seed's 50-60% "CPU due to interrupts" also counts
//   the netisr's TCP work, which runs after the handler and does not delay it; the model does
//   not carry that work.
// With these the model gives ~47.6K -> ~39.0K ints/s (-18%); the seed measured -17%.
#include <cstdint>

#include "gtest/gtest.h"
#include "tuner/sim_engine.h"

namespace nictune::tuner {
namespace {

SimScenario Seed000(NapiPollMode mode) {
  SimScenario s;
  s.arrivals.pattern = ArrivalPattern::kPoisson;
  s.arrivals.rate_pps = 57000;
  s.frame.frame_bytes = 60;  // a SYN
  s.moderation.kind = ModerationKind::kStatic;
  s.moderation.fixed.rx_usecs = 0;
  s.napi.mode = mode;
  s.cost.hardirq_ns = 3000;
  s.cost.packet_ns = 3500;
  s.rcvbuf_bytes = 1 << 30;  // the flood goes to a closed port: no socket limit in this seed
  s.app.placement = AppPlacement::kOwnCpu;
  s.duration_ns = 2'000'000'000;
  s.seed = 2001;
  return s;
}

TEST(SimSeed000, LoopingWhileWorkRemainsTakesFewerInterrupts) {
  absl::StatusOr<SimResult> one_pass = Simulate(Seed000(NapiPollMode::kSinglePass));
  absl::StatusOr<SimResult> looping = Simulate(Seed000(NapiPollMode::kRepollWhileWork));
  ASSERT_TRUE(one_pass.ok()) << one_pass.status();
  ASSERT_TRUE(looping.ok()) << looping.status();

  EXPECT_LT(looping->interrupts_per_s, one_pass->interrupts_per_s);
  // Near the seed's figures (46000 and 38000), within the model's crudeness.
  EXPECT_GT(one_pass->interrupts_per_s, 42'000);
  EXPECT_LT(one_pass->interrupts_per_s, 52'000);
  EXPECT_GT(looping->interrupts_per_s, 34'000);
  EXPECT_LT(looping->interrupts_per_s, 43'000);
  const double reduction = 1 - looping->interrupts_per_s / one_pass->interrupts_per_s;
  EXPECT_GT(reduction, 0.10);
  EXPECT_LT(reduction, 0.26);

  // Both process every packet; the one-pass driver also pays for its extra interrupts.
  EXPECT_EQ(one_pass->ring_drops, 0u);
  EXPECT_EQ(looping->ring_drops, 0u);
  EXPECT_GT(one_pass->softirq_cpu.hardirq_ns, looping->softirq_cpu.hardirq_ns);
  EXPECT_NEAR(static_cast<double>(one_pass->softirq_cpu.softirq_ns),
              static_cast<double>(looping->softirq_cpu.softirq_ns),
              0.01 * static_cast<double>(looping->softirq_cpu.softirq_ns));
}

TEST(SimSeed000, LoopingTakesMorePacketsPerInterruptUnderMoreLoad) {
  // The saving comes from packets that arrive while the handler runs, so it grows with the
  // handler's busy share (seed: "mitigation helps more the more loaded the box is").
  double previous_saving = 0;
  for (double rate : {20'000.0, 57'000.0, 100'000.0}) {
    SimScenario one = Seed000(NapiPollMode::kSinglePass);
    SimScenario loop = Seed000(NapiPollMode::kRepollWhileWork);
    one.arrivals.rate_pps = rate;
    loop.arrivals.rate_pps = rate;
    absl::StatusOr<SimResult> a = Simulate(one);
    absl::StatusOr<SimResult> b = Simulate(loop);
    ASSERT_TRUE(a.ok() && b.ok());
    const double saving = 1 - b->interrupts_per_s / a->interrupts_per_s;
    EXPECT_GT(saving, previous_saving) << "rate " << rate;
    previous_saving = saving;
  }
}

}  // namespace
}  // namespace nictune::tuner
