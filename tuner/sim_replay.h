// SPDX-License-Identifier: Apache-2.0
// The tuner judged by the simulator: build the Observation the agent would make of a simulated
// queue, run Recommend() on it (the real tuner path: PlanInterval, RecommendCoalesce,
// RecommendRmem), and replay the simulator with what it recommends (rx-usecs, and the bigger
// default buffer where it grows one). Used by the scenario matrix (tests/bench/sim_bench.cc) and
// its unit test.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/sim_result.h"
#include "tuner/sim_scenario.h"

namespace nictune::tuner {

// What the agent measures of the scenario over a 10 s window, taken from the scenario's truth:
// mean and peak rates (on/off bursts peak at rate * (on + off) / on), truesize, the socket's
// buffer (on the default buffer: rmem_default = rcvbuf), the drain gap, the bursts' length and
// pause (on/off), the most packets a gap can meet (constant and on/off traffic), whether the
// reader shares the softirq's CPU, the per-interrupt cost (hard IRQ + poll) and the per-packet softirq cost
// (packet + poll / weight), the ring size, and a driver that takes rx-usecs in 1 us steps up to
// rx_usecs_max with adaptive moderation off.
Observation ObservationOfScenario(const SimScenario& scenario, uint32_t rx_usecs_max);

// The same, with the counts a run measured (packets, interrupts, polls, socket and ring drops,
// the interrupt CPU's split) over the run's duration as the window: the agent's view of one
// window at the scenario's current rx-usecs.
Observation ObservationOfRun(const SimScenario& scenario, const SimResult& run,
                             uint32_t rx_usecs_max);

struct TunerReplay {
  int64_t rx_usecs = 0;
  int64_t rcvbuf_bytes = 0;   // what the replay ran with
  bool buffer_grown = false;  // the tuner raised rmem_default above the socket's buffer
  // Every non-empty Recommendation::unresolved, joined: the tuner's own word that it cannot make
  // the queue drop-free. Empty: it claims drop-free.
  std::string unresolved;
  SimResult replay;
  uint64_t drops() const { return replay.ring_drops + replay.socket_drops; }
};

// InvalidArgument for an invalid scenario; the tuner's error when Recommend fails; Internal when
// it returns no rx-usecs for the queue.
absl::StatusOr<TunerReplay> ReplayTuner(const SimScenario& scenario, const PolicyConfig& config,
                                        uint32_t rx_usecs_max);

}  // namespace nictune::tuner
