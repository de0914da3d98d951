// SPDX-License-Identifier: Apache-2.0
// The apply-mode loop closed through the simulator for one simulated hour of alternating load:
// every 10 s window the simulator runs the queue at the knob's current rx-usecs, the agent's view
// of that run goes through Recommend(), and the Controller's actions are carried out on the knob.
// The load flips between 812744 pps (seed 001) and 100 kpps every minute, so the tuner's wish
// swings between ~60 and ~800 us. The controller must not follow the swing: direction reversals at
// most one per cooldown, bounded steps, values in range, bounded churn; under a steady load it must
// reach a drop-free setting; and drops no interval stops must not ratchet it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <variant>
#include <vector>

#include "gtest/gtest.h"
#include "tuner/controller.h"
#include "tuner/limits.h"
#include "tuner/policy_config.h"
#include "tuner/recommend.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_replay.h"

namespace nictune::tuner {
namespace {

constexpr uint32_t kRxUsecsMax = 1000;

// Seed 001's socket (212992 B, 1514-byte frames: truesize 2304) with a reader on the softirq's
// CPU, realistic costs and a 1024-descriptor ring. Each window is represented by 20 ms of traffic.
SimScenario Window(double rate_pps, int64_t rx_usecs, uint64_t seed) {
  SimScenario s;
  s.arrivals.pattern = ArrivalPattern::kPoisson;
  s.arrivals.rate_pps = rate_pps;
  s.ring_size = 1024;
  s.moderation.fixed.rx_usecs = rx_usecs;
  s.cost = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 100};
  s.rcvbuf_bytes = 212992;
  s.app.placement = AppPlacement::kSameCpuAsSoftirq;
  s.duration_ns = 20'000'000;
  s.seed = seed;
  return s;
}

struct LoopRecord {
  int windows = 0;
  int windows_with_drops = 0;
  int writes = 0;  // applies and rollbacks
  int rollbacks = 0;
  std::vector<absl::Time> reversals;  // an Apply whose direction differs from the previous one
  int64_t final_rx_usecs = 0;
  uint64_t final_drops = 0;
};

// A reader off CPU for gap_ns in every period_ns, pauses the agent's probes did not see: each
// window's observation times no drain gap. 0: none.
struct UnseenPauses {
  int64_t gap_ns = 0;
  int64_t period_ns = 0;
};

void HideDrainGaps(Observation& obs) {
  for (QueueObservation& q : obs.queues) {
    for (SocketObservation& socket : q.sockets) {
      socket.drain_gap_s = 0;
      socket.drain_gap_seen_below_s = 0;
      socket.max_packets_per_gap = 0;
    }
  }
}

// Runs the loop from rx-usecs start_us; rate_at gives the load of each window.
template <typename RateAt>
LoopRecord RunLoop(int64_t start_us, absl::Duration length, RateAt rate_at,
                   const PolicyConfig& policy = PolicyConfig{}, UnseenPauses pauses = {}) {
  const ControllerConfig config;
  Controller controller(config);
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  const absl::Time start = now;
  int64_t rx_usecs = start_us;
  int last_direction = 0;
  LoopRecord rec;
  for (uint64_t i = 0; now < start + length; ++i, now += config.window) {
    SimScenario s = Window(rate_at(now - start), rx_usecs, i + 1);
    s.app.gap_ns = pauses.gap_ns;
    s.app.gap_period_ns = pauses.period_ns;
    absl::StatusOr<SimResult> run = Simulate(s);
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) return rec;
    Observation observed = ObservationOfRun(s, *run, kRxUsecsMax);
    if (pauses.gap_ns > 0) HideDrainGaps(observed);
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(observed, policy);
    EXPECT_TRUE(recs.ok()) << recs.status();
    if (!recs.ok()) return rec;
    const double seconds = static_cast<double>(run->duration_ns) * 1e-9;
    const Health health{
        .drops_per_s = static_cast<double>(run->socket_drops + run->ring_drops) / seconds,
        .cpu_share =
            static_cast<double>(run->softirq_cpu.hardirq_ns + run->softirq_cpu.softirq_ns) /
            static_cast<double>(run->duration_ns)};
    ++rec.windows;
    if (health.drops_per_s > 0) ++rec.windows_with_drops;
    rec.final_drops = run->socket_drops + run->ring_drops;
    const KnobReading reading{Knob::kRxUsecs, "sim0", rx_usecs, "", std::nullopt};
    for (const Action& a : controller.Step(now, {reading}, health, *recs)) {
      if (const auto* apply = std::get_if<Apply>(&a)) {
        EXPECT_LE(apply->value, 2 * std::max<int64_t>(apply->from, 1));
        EXPECT_GE(apply->value, apply->from / 2);
        EXPECT_TRUE(InRange(apply->value, TunerRange(Knob::kRxUsecs))) << apply->value;
        const int direction = apply->value > apply->from ? 1 : -1;
        if (last_direction != 0 && direction != last_direction) rec.reversals.push_back(now);
        last_direction = direction;
        rx_usecs = apply->value;
        ++rec.writes;
      } else if (const auto* rollback = std::get_if<Rollback>(&a)) {
        rx_usecs = rollback->value;
        ++rec.writes;
        ++rec.rollbacks;
      } else {
        ADD_FAILURE() << "nobody else writes the simulated knob, yet the controller released it";
      }
    }
  }
  rec.final_rx_usecs = rx_usecs;
  return rec;
}

TEST(SimClosedLoopTest, AlternatingLoadForAnHourDoesNotOscillate) {
  const ControllerConfig config;
  const LoopRecord rec = RunLoop(50, absl::Hours(1), [](absl::Duration t) {
    return (t / absl::Minutes(1)) % 2 == 0 ? 812'744.0 : 100'000.0;
  });
  EXPECT_EQ(rec.windows, 360);
  for (size_t i = 1; i < rec.reversals.size(); ++i) {
    EXPECT_GE(rec.reversals[i] - rec.reversals[i - 1], config.cooldown) << "reversal " << i;
  }
  EXPECT_LE(rec.reversals.size(), static_cast<size_t>(absl::Hours(1) / config.cooldown) + 1);
  // Bounded churn: one write per window would be 360.
  EXPECT_LE(rec.writes, 40) << "rollbacks " << rec.rollbacks;
  // The knob is written at all: the loop is live, not frozen.
  EXPECT_GE(rec.writes, 2);
  std::printf(
      "one hour, load flipping every minute: %d writes (%d rollbacks), %zu reversals, "
      "%d of %d windows with drops, final rx-usecs %d\n",
      rec.writes, rec.rollbacks, rec.reversals.size(), rec.windows_with_drops, rec.windows,
      static_cast<int>(rec.final_rx_usecs));
}

TEST(SimClosedLoopTest, SteadyLoadSettlesDropFree) {
  // From ixgbe's 84 us bulk class, which overflows seed 001's socket at 812744 Poisson pps with
  // this reader: the drops seen at 84 us keep the tuner below (1 - dropped_backoff) * 84, and the
  // loop steps down to a drop-free interval (84 -> 75 -> 67 -> 60 -> 54). Known limitation: with no drops in the
  // window the model (mean = peak for Poisson) asks for ~92 us again, whose random per-interval
  // counts overflow; the guard rolls that back and parks the knob, so it costs one window of
  // drops per cooldown, not an oscillation.
  const ControllerConfig config;
  const LoopRecord rec = RunLoop(84, absl::Minutes(30), [](absl::Duration) { return 812'744.0; });
  EXPECT_GT(rec.windows_with_drops, 0);  // it started overflowing
  EXPECT_EQ(rec.final_drops, 0u) << "final rx-usecs " << rec.final_rx_usecs;
  EXPECT_LT(rec.final_rx_usecs, 84);
  // Measured: 7 of 180 (the probes plus sporadic Poisson tails while the knob is parked; 26
  // before the controller held back reversing a step it took while sockets dropped).
  EXPECT_LE(rec.windows_with_drops, 30) << "of " << rec.windows;
  for (size_t i = 1; i < rec.reversals.size(); ++i) {
    EXPECT_GE(rec.reversals[i] - rec.reversals[i - 1], config.cooldown) << "reversal " << i;
  }
  std::printf(
      "30 min steady: %d writes (%d rollbacks), %d of %d windows with drops, final "
      "rx-usecs %d\n",
      rec.writes, rec.rollbacks, rec.windows_with_drops, rec.windows,
      static_cast<int>(rec.final_rx_usecs));
}

// Drops at the current interval keep the plan below (1 - dropped_backoff) * current, whatever
// the margin: random per-interval counts overrun what the model predicts for a steady flow, and a
// back-off tied to the margin stepped down by 5% at margin 0.05 (drops in 129 of 180 windows) and
// not at all at margin 0 (84 us and drops for all 180). Side by side, 30 min of seed 001's steady
// load from 84 us at margin 0 and at 0.10: the same steps down and the same probes back up (once
// per cooldown, rolled back); only the probe differs (101 us at margin 0, 91 at 0.10).
TEST(SimClosedLoopTest, TheBackOffAfterDropsDoesNotDependOnTheMargin) {
  const auto steady = [](absl::Duration) { return 812'744.0; };
  PolicyConfig none;
  none.margin = 0;
  PolicyConfig ten_percent;
  ten_percent.margin = 0.10;
  const LoopRecord at_zero = RunLoop(84, absl::Minutes(30), steady, none);
  const LoopRecord at_ten = RunLoop(84, absl::Minutes(30), steady, ten_percent);
  std::printf("30 min steady, windows with drops of %d: margin 0 %d, margin 0.10 %d\n",
              at_zero.windows, at_zero.windows_with_drops, at_ten.windows_with_drops);
  for (const LoopRecord* rec : {&at_zero, &at_ten}) {
    EXPECT_EQ(rec->final_drops, 0u);
    EXPECT_LT(rec->final_rx_usecs, 84);
    EXPECT_LE(rec->windows_with_drops, 30);
  }
}

// A reader that pauses 2 ms in every 10 ms, longer than seed 001's socket fills (87 us), loses
// what arrives meanwhile at any interval; its pauses are what the probe's slots missed, so the
// tuner sees drops at the current 54 us, where the loop above settles, and backs off by a tenth
// each window. A shorter interval stops none of them: after one step that left the drops as they
// were, the controller takes the next only after a cooldown, where stepping down every guard
// window would end far below, at many times the interrupts for the same drops.
TEST(SimClosedLoopTest, DropsNoIntervalStopsCostOneStepPerCooldownNotARatchet) {
  const ControllerConfig config;
  const LoopRecord rec = RunLoop(
      54, absl::Minutes(30), [](absl::Duration) { return 812'744.0; }, PolicyConfig{},
      UnseenPauses{.gap_ns = 2'000'000, .period_ns = 10'000'000});
  EXPECT_EQ(rec.windows_with_drops, rec.windows) << "every pause overflows the socket";
  const int cooldowns = static_cast<int>(absl::Minutes(30) / config.cooldown);
  EXPECT_LE(rec.writes, cooldowns + 1) << "final rx-usecs " << rec.final_rx_usecs;
  EXPECT_GE(rec.final_rx_usecs, 54 * 9 / 10 * 9 / 10 * 9 / 10);
  std::printf("30 min of unseen reader pauses: %d writes (%d rollbacks), final rx-usecs %d\n",
              rec.writes, rec.rollbacks, static_cast<int>(rec.final_rx_usecs));
}

}  // namespace
}  // namespace nictune::tuner
