// Simulator figures: how fast it runs (one simulated second of 1 Mpps), and the scenario matrix
// that judges the fill-math interval against the exhaustive sweep's optimum and the baselines
// (static rx-usecs 0 and 50, ixgbe adaptive, DIM). Figures are reported as counters, never
// asserted.
//
//   build/tests/bench/sim_bench --benchmark_filter=OneSecond
//   build/tests/bench/sim_bench --benchmark_filter=Matrix --benchmark_counters_tabular=true
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "tuner/fill_math.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_sweep.h"
#include "tuner/sim_whatif.h"

namespace nictune::tuner {
namespace {

constexpr CostModel kCosts = {.hardirq_ns = 1000, .poll_ns = 200, .packet_ns = 100};

void BM_OneSecondOneMpps(benchmark::State& state, ArrivalPattern pattern, ModerationKind kind) {
  SimScenario s;
  s.arrivals.pattern = pattern;
  s.arrivals.rate_pps = 1'000'000;
  s.arrivals.on_ns = 1'000'000;
  s.arrivals.off_ns = 1'000'000;
  s.moderation.kind = kind;
  s.moderation.fixed.rx_usecs = 50;
  s.cost = kCosts;
  s.app.read_ns = 500;
  s.duration_ns = 1'000'000'000;
  uint64_t packets = 0;
  for (auto _ : state) {
    absl::StatusOr<SimResult> r = Simulate(s);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    packets += r->packets_arrived;
    state.counters["ints_per_s"] = r->interrupts_per_s;
  }
  state.SetItemsProcessed(static_cast<int64_t>(packets));
}
BENCHMARK_CAPTURE(BM_OneSecondOneMpps, constant_static, ArrivalPattern::kConstant,
                  ModerationKind::kStatic)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_OneSecondOneMpps, poisson_static, ArrivalPattern::kPoisson,
                  ModerationKind::kStatic)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_OneSecondOneMpps, poisson_ixgbe, ArrivalPattern::kPoisson,
                  ModerationKind::kIxgbeAdaptive)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_OneSecondOneMpps, onoff_dim, ArrivalPattern::kOnOff, ModerationKind::kDim)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

struct MatrixPoint {
  double rate_pps;
  int64_t frame_bytes;
  int64_t rcvbuf_bytes;
  int64_t drain_gap_us;
  ArrivalPattern pattern;
};

// The what-if's scenario (reader drains between interrupts, optional gap) with the matrix's
// frame size, realistic costs and a 1024-descriptor ring.
SimScenario MatrixScenario(const MatrixPoint& p, int64_t duration_us) {
  FrameConfig frame;
  frame.frame_bytes = p.frame_bytes;
  WhatIfInput in;
  in.rate_pps = p.rate_pps;
  in.truesize_bytes = TruesizeBytes(frame);
  in.rcvbuf_bytes = p.rcvbuf_bytes;
  in.drain_gap_us = p.drain_gap_us;
  in.duration_us = duration_us;
  in.ring_size = 1024;
  in.cost = kCosts;
  in.pattern = p.pattern;
  SimScenario s = WhatIfScenario(in);
  s.frame.frame_bytes = p.frame_bytes;  // bytes matter to ixgbe's classes and DIM's stats
  return s;
}

struct Outcome {
  double ints_per_s = 0;
  uint64_t drops = 0;
};

Outcome RunWith(SimScenario s, const ModerationConfig& moderation) {
  s.moderation = moderation;
  absl::StatusOr<SimResult> r = Simulate(s);
  if (!r.ok()) return {-1, 0};
  return {r->interrupts_per_s, r->socket_drops + r->ring_drops};
}

void BM_Matrix(benchmark::State& state, MatrixPoint p) {
  // Long enough for three of the reader's gap periods and twenty on/off bursts.
  const int64_t duration_us =
      std::max<int64_t>(40'000, 3 * std::max<int64_t>(1000, 10 * p.drain_gap_us));
  const SimScenario base = MatrixScenario(p, duration_us);
  for (auto _ : state) {
    // The fill math's interval (margin 0.1), floored to whole microseconds, capped at 1000.
    absl::StatusOr<FillResult> fill =
        ComputeFill({.rate_pps = p.rate_pps,
                     .truesize_bytes = static_cast<double>(base.frame.truesize_bytes.value_or(0)),
                     .rcvbuf_bytes = static_cast<double>(p.rcvbuf_bytes),
                     .drain_gap_s = static_cast<double>(p.drain_gap_us) * 1e-6,
                     .margin = 0.1});
    const int64_t choice_us =
        fill.ok() ? std::clamp<int64_t>(
                        static_cast<int64_t>(std::floor(fill->max_interval_s * 1e6)), 0, 1000)
                  : 0;
    ModerationConfig fixed;
    fixed.fixed.rx_usecs = choice_us;
    const Outcome tuner = RunWith(base, fixed);

    // The optimum: fine steps up to 100 us, coarse beyond.
    std::optional<SweepPoint> best;
    for (auto [lo, hi, step] : {std::tuple<int64_t, int64_t, int64_t>{0, 100, 5},
                                std::tuple<int64_t, int64_t, int64_t>{120, 1000, 20}}) {
      absl::StatusOr<SweepResult> sweep = SweepRxUsecs(base, lo, hi, step);
      if (sweep.ok() && sweep->best &&
          (!best || sweep->best->interrupts_per_s < best->interrupts_per_s)) {
        best = sweep->best;
      }
    }

    ModerationConfig static0;
    ModerationConfig static50;
    static50.fixed.rx_usecs = 50;
    ModerationConfig ixgbe;
    ixgbe.kind = ModerationKind::kIxgbeAdaptive;
    ModerationConfig dim;
    dim.kind = ModerationKind::kDim;
    const Outcome s0 = RunWith(base, static0);
    const Outcome s50 = RunWith(base, static50);
    const Outcome ix = RunWith(base, ixgbe);
    const Outcome dm = RunWith(base, dim);

    const double seconds = static_cast<double>(duration_us) * 1e-6;
    state.counters["tuner_us"] = static_cast<double>(choice_us);
    state.counters["tuner_ints"] = tuner.ints_per_s;
    state.counters["tuner_drops_s"] = static_cast<double>(tuner.drops) / seconds;
    state.counters["opt_us"] = best ? static_cast<double>(best->rx_usecs) : -1;
    state.counters["opt_ints"] = best ? best->interrupts_per_s : -1;
    state.counters["tuner_vs_opt"] =
        best && best->interrupts_per_s > 0 ? tuner.ints_per_s / best->interrupts_per_s : -1;
    state.counters["s0_drops_s"] = static_cast<double>(s0.drops) / seconds;
    state.counters["s50_drops_s"] = static_cast<double>(s50.drops) / seconds;
    state.counters["ixgbe_drops_s"] = static_cast<double>(ix.drops) / seconds;
    state.counters["dim_drops_s"] = static_cast<double>(dm.drops) / seconds;
    state.counters["s0_ints"] = s0.ints_per_s;
    state.counters["ixgbe_ints"] = ix.ints_per_s;
    state.counters["dim_ints"] = dm.ints_per_s;
  }
}

int RegisterMatrix() {
  for (double rate : {10'000.0, 100'000.0, 812'744.0, 2'000'000.0}) {
    for (int64_t frame : {64, 1514, 9000}) {
      for (int64_t rcvbuf : {65536, 212992, 8 << 20}) {
        for (int64_t gap : {0, 2000}) {
          for (ArrivalPattern pattern : {ArrivalPattern::kConstant, ArrivalPattern::kOnOff}) {
            const MatrixPoint p{rate, frame, rcvbuf, gap, pattern};
            const std::string name =
                absl::StrFormat("Matrix/%.0fpps/%dB/rcvbuf%d/gap%dus/%s", rate, frame, rcvbuf, gap,
                                pattern == ArrivalPattern::kConstant ? "constant" : "bursty");
            benchmark::RegisterBenchmark(name.c_str(), BM_Matrix, p)
                ->Iterations(1)
                ->Unit(benchmark::kMillisecond);
          }
        }
      }
    }
  }
  return 0;
}
const int kMatrixRegistered = RegisterMatrix();

}  // namespace
}  // namespace nictune::tuner

BENCHMARK_MAIN();
