// SPDX-License-Identifier: Apache-2.0
// The scenario matrix that judges the tuner in the simulator (tuner/README.md): a grid of rates,
// frame sizes, buffers, drain gaps and arrival patterns, each point the what-if's scenario with
// realistic costs and a 1024-descriptor ring, and the baselines the tuner is compared with on the
// same seeds. One definition for the matrix's unit test (a small grid) and
// tests/bench/sim_bench.cc (the full one), so that both judge the same scenarios.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/sim_scenario.h"

namespace nictune::tuner {

// 1 us per hard IRQ, 0.2 us per poll, 0.1 us per packet.
inline constexpr CostModel kMatrixCosts = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 100};
// The driver maximum the tuner is told, and the sweep's range.
inline constexpr uint32_t kMatrixRxUsecsMax = 1000;

struct MatrixPoint {
  double rate_pps = 0;
  int64_t frame_bytes = 0;
  int64_t rcvbuf_bytes = 0;
  int64_t drain_gap_us = 0;
  ArrivalPattern pattern = ArrivalPattern::kConstant;  // kConstant or kOnOff (1 ms on, 1 ms off)
};

struct MatrixAxes {
  std::vector<double> rates_pps;
  std::vector<int64_t> frame_bytes;
  std::vector<int64_t> rcvbuf_bytes;
  std::vector<int64_t> drain_gaps_us;
  std::vector<ArrivalPattern> patterns;
};

// Every combination of the axes, the last axis varying fastest.
std::vector<MatrixPoint> MatrixPoints(const MatrixAxes& axes);

// "812744pps/1514B/rcvbuf212992/gap0us/bursty": a benchmark name and a failure message.
std::string MatrixPointName(const MatrixPoint& point);

// Drain gaps per run: each gap starts at a random point of its period (sim_gaps.h), so a run
// judges as many phases of the gap against the bursts and the interrupt cycle as it has gaps. 32
// start a gap in every eighth of the 2 ms on/off cycle for seeds 1 to 10; 16 miss an eighth for 8
// of those 10 (tests/unit/sim_gaps_test.cc).
inline constexpr int kMatrixGapsPerRun = 32;

// The what-if's scenario (the reader shares the softirq's CPU and drains between interrupts, its
// gap once per max(1 ms, 10 gaps)) with the point's frame size, `cost` and a 1024-descriptor ring;
// long enough for kMatrixGapsPerRun gap periods and twenty on/off bursts.
SimScenario MatrixScenario(const MatrixPoint& point, const CostModel& cost = kMatrixCosts);

// One run meets a drain gap at kMatrixGapsPerRun random phases; a verdict of drop-free must hold
// at more. Every policy is judged over these seeds, each a different set of gap phases (the
// arrivals are the same for constant and on/off traffic, so without a gap one run is the
// verdict). Fewer missed narrow bad phases: 10 kpps in 1 ms bursts into 64 KiB behind a 2 ms gap
// drops at 960 us in 11 of 300 seeds, none of the first 8, and at 620 us in 1 of 128, none of the
// first 32 (tests/bench/sim_bench.cc, DroppingSeeds).
inline constexpr uint64_t kVerdictSeeds = 128;

// kVerdictSeeds behind a drain gap, 1 without one.
uint64_t VerdictSeedsFor(const SimScenario& scenario);

// A policy over the verdict seeds 1..VerdictSeedsFor: how many seeds dropped (ring or socket),
// and the mean drop and interrupt rates.
struct PolicyRun {
  int dropping_seeds = 0;
  uint64_t seeds = 0;
  double drops_per_s = 0;
  double ints_per_s = 0;
  bool drop_free() const { return dropping_seeds == 0; }
};

// The scenario under `moderation` over its verdict seeds; the simulator's error if a run fails.
absl::StatusOr<PolicyRun> RunOverSeeds(SimScenario scenario, const ModerationConfig& moderation);

// What the tuner is compared with, each judged as the tuner is: the raw fill math on the mean rate
// (margin 0.1), static rx-usecs 0 and 50, ixgbe's adaptive ITR with seed 001's 12K floor and
// without it (its 8K bulk class before the patch: seed 001's "before"), and DIM.
enum class Baseline { kFillMath, kStatic0, kStatic50, kIxgbe, kIxgbeBeforeSeed001, kDim };
inline constexpr Baseline kBaselines[] = {Baseline::kFillMath, Baseline::kStatic0,
                                          Baseline::kStatic50, Baseline::kIxgbe,
                                          Baseline::kIxgbeBeforeSeed001, Baseline::kDim};
const char* BaselineName(Baseline baseline);  // "ixgbe 8K (before)"
const char* BaselineKey(Baseline baseline);   // "ixgbe8k": a counter's prefix

// The baseline's moderation for the point's scenario (the fill math's interval depends on it).
ModerationConfig BaselineModeration(Baseline baseline, const MatrixPoint& point,
                                    const SimScenario& scenario);

}  // namespace nictune::tuner
