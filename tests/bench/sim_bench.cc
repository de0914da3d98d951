// Simulator figures: how fast it runs (one simulated second of 1 Mpps), and the scenario matrix
// that judges the tuner (Recommend() on what the agent would observe, replayed in the simulator
// with the buffer it grows: tuner/sim_replay.h) against the exhaustive sweep's optimum, the raw
// fill math and the baselines (static rx-usecs 0 and 50, ixgbe adaptive, DIM). Drop-free verdicts
// on the tuner's setting and the optimum hold over kVerdictSeeds sets of gap phases. Figures are
// reported as counters, never asserted.
//
//   build/tests/bench/sim_bench --benchmark_filter=OneSecond
//   build/tests/bench/sim_bench --benchmark_filter='Matrix/' --benchmark_counters_tabular=true
//   build/tests/bench/sim_bench --benchmark_filter=MatrixSummary
//   NICTUNE_MATRIX_MARGIN=0.05 build/tests/bench/sim_bench --benchmark_filter=MatrixSummary
//   build/tests/bench/sim_bench --benchmark_filter=DroppingSeeds
// (the tuner's margin for the matrix; the default is PolicyConfig's)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "tuner/fill_math.h"
#include "tuner/policy_config.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_matrix.h"
#include "tuner/sim_replay.h"
#include "tuner/sim_sweep.h"

namespace nictune::tuner {
namespace {

void BM_OneSecondOneMpps(benchmark::State& state, ArrivalPattern pattern, ModerationKind kind) {
  SimScenario s;
  s.arrivals.pattern = pattern;
  s.arrivals.rate_pps = 1'000'000;
  s.arrivals.on_ns = 1'000'000;
  s.arrivals.off_ns = 1'000'000;
  s.moderation.kind = kind;
  s.moderation.fixed.rx_usecs = 50;
  s.cost = kMatrixCosts;
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

std::vector<MatrixPoint> FullMatrix() {
  return MatrixPoints({
      .rates_pps = {10'000, 100'000, 812'744, 2'000'000},
      .frame_bytes = {64, 1514, 9000},
      .rcvbuf_bytes = {65536, 212992, 8 << 20},
      .drain_gaps_us = {0, 2000},
      .patterns = {ArrivalPattern::kConstant, ArrivalPattern::kOnOff},
  });
}

struct Outcome {
  double ints_per_s = 0;
  uint64_t drops = 0;
};

// One run meets a drain gap at kMatrixGapsPerRun random phases; a verdict of drop-free must hold
// at more. The tuner's setting and the sweep's optimum are both judged over these seeds, each a
// different set of gap phases (the arrivals are the same for constant and on/off traffic, so
// without a gap one run is the verdict). Fewer missed narrow bad phases: 10 kpps in 1 ms bursts
// into 64 KiB behind a 2 ms gap drops at 960 us in 11 of 300 seeds, none of the first 8, and at
// 620 us in 1 of 128, none of the first 32.
constexpr uint64_t kVerdictSeeds = 128;

// Seeds of 1..seeds (the scenario's own first; 1 without a gap) whose run at rx_usecs dropped,
// counting stopped at the first when stop_at_first; -1 when a run failed.
int DroppingSeeds(SimScenario s, int64_t rx_usecs, bool stop_at_first = false,
                  uint64_t seeds = kVerdictSeeds) {
  s.moderation.kind = ModerationKind::kStatic;
  s.moderation.fixed.rx_usecs = rx_usecs;
  s.moderation.fixed.rx_frames = 0;
  if (s.app.gap_period_ns == 0) seeds = 1;
  int dropping = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    s.seed = seed;
    absl::StatusOr<SimResult> r = Simulate(s);
    if (!r.ok()) return -1;
    if (r->socket_drops + r->ring_drops > 0) {
      ++dropping;
      if (stop_at_first) break;
    }
  }
  return dropping;
}

Outcome RunWith(SimScenario s, const ModerationConfig& moderation) {
  s.moderation = moderation;
  absl::StatusOr<SimResult> r = Simulate(s);
  if (!r.ok()) return {-1, 0};
  return {r->interrupts_per_s, r->socket_drops + r->ring_drops};
}

// The raw fill math's interval (mean rate, margin 0.1), floored to whole us, capped: what the
// matrix used before the tuner path, kept as a column to show what the model adds.
int64_t FillMathRxUsecs(const MatrixPoint& p, const SimScenario& s) {
  absl::StatusOr<FillResult> fill =
      ComputeFill({.rate_pps = p.rate_pps,
                   .truesize_bytes = static_cast<double>(TruesizeBytes(s.frame)),
                   .rcvbuf_bytes = static_cast<double>(p.rcvbuf_bytes),
                   .drain_gap_s = static_cast<double>(p.drain_gap_us) * 1e-6,
                   .margin = 0.1});
  if (!fill.ok()) return 0;
  return std::clamp<int64_t>(static_cast<int64_t>(std::floor(fill->max_interval_s * 1e6)), 0,
                             kMatrixRxUsecsMax);
}

// PolicyConfig{}, with NICTUNE_MATRIX_MARGIN as the margin when set: what the margin costs and
// buys is measured by re-running the matrix at another one.
PolicyConfig MatrixPolicy() {
  PolicyConfig config;
  if (const char* margin = std::getenv("NICTUNE_MATRIX_MARGIN"); margin != nullptr) {
    if (!absl::SimpleAtod(margin, &config.margin) || !(config.margin >= 0 && config.margin < 1)) {
      std::fprintf(stderr, "NICTUNE_MATRIX_MARGIN=%s: expected a number in [0, 1)\n", margin);
      std::exit(2);
    }
  }
  return config;
}

struct MatrixRow {
  TunerReplay tuner;
  int tuner_dropping_seeds = 0;  // of kVerdictSeeds, at the tuner's rx-usecs and buffer
  double seconds = 0;
  // At the scenario's own buffer: the lowest interrupt rate drop-free over every verdict seed.
  std::optional<SweepPoint> optimum;
  Outcome fill_math;
  Outcome static0;
  Outcome static50;
  Outcome ixgbe;
  Outcome dim;
};

absl::StatusOr<MatrixRow> EvaluateMatrixPoint(const MatrixPoint& p) {
  const SimScenario base = MatrixScenario(p);
  MatrixRow row;
  row.seconds = static_cast<double>(base.duration_ns) * 1e-9;
  absl::StatusOr<TunerReplay> tuner = ReplayTuner(base, MatrixPolicy(), kMatrixRxUsecsMax);
  if (!tuner.ok()) return tuner.status();
  row.tuner = *std::move(tuner);

  SimScenario tuned = base;
  tuned.rcvbuf_bytes = row.tuner.rcvbuf_bytes;
  row.tuner_dropping_seeds = DroppingSeeds(tuned, row.tuner.rx_usecs);

  // The optimum: fine steps up to 100 us, coarse beyond; the drop-free points from the lowest
  // interrupt rate up, until one stays drop-free over every verdict seed.
  std::vector<SweepPoint> drop_free;
  for (auto [lo, hi, step] : {std::tuple<int64_t, int64_t, int64_t>{0, 100, 5},
                              std::tuple<int64_t, int64_t, int64_t>{120, 1000, 20}}) {
    absl::StatusOr<SweepResult> sweep = SweepRxUsecs(base, lo, hi, step);
    if (!sweep.ok()) return sweep.status();
    for (const SweepPoint& point : sweep->points) {
      if (point.drops == 0) drop_free.push_back(point);
    }
  }
  std::stable_sort(drop_free.begin(), drop_free.end(),
                   [](const SweepPoint& a, const SweepPoint& b) {
                     return a.interrupts_per_s < b.interrupts_per_s;
                   });
  for (const SweepPoint& point : drop_free) {
    if (DroppingSeeds(base, point.rx_usecs, /*stop_at_first=*/true) == 0) {
      row.optimum = point;
      break;
    }
  }

  ModerationConfig fill;
  fill.fixed.rx_usecs = FillMathRxUsecs(p, base);
  ModerationConfig static0;
  ModerationConfig static50;
  static50.fixed.rx_usecs = 50;
  ModerationConfig ixgbe;
  ixgbe.kind = ModerationKind::kIxgbeAdaptive;
  ModerationConfig dim;
  dim.kind = ModerationKind::kDim;
  row.fill_math = RunWith(base, fill);
  row.static0 = RunWith(base, static0);
  row.static50 = RunWith(base, static50);
  row.ixgbe = RunWith(base, ixgbe);
  row.dim = RunWith(base, dim);
  return row;
}

// Within 1.1x of the optimum's interrupt rate; only where the tuner kept the scenario's buffer
// (a grown buffer is a different scenario from the one the sweep optimised).
std::optional<double> VersusOptimum(const MatrixRow& row) {
  if (!row.optimum || row.optimum->interrupts_per_s <= 0 || row.tuner.buffer_grown) {
    return std::nullopt;
  }
  return row.tuner.replay.interrupts_per_s / row.optimum->interrupts_per_s;
}

void BM_Matrix(benchmark::State& state, MatrixPoint p) {
  for (auto _ : state) {
    absl::StatusOr<MatrixRow> row = EvaluateMatrixPoint(p);
    if (!row.ok()) {
      state.SkipWithError(std::string(row.status().message()).c_str());
      return;
    }
    const TunerReplay& t = row->tuner;
    const double s = row->seconds;
    state.counters["tuner_us"] = static_cast<double>(t.rx_usecs);
    state.counters["tuner_rcvbuf"] = static_cast<double>(t.rcvbuf_bytes);
    state.counters["tuner_ints"] = t.replay.interrupts_per_s;
    state.counters["tuner_drops_s"] = static_cast<double>(t.drops()) / s;
    state.counters["tuner_dropping_seeds"] = row->tuner_dropping_seeds;
    state.counters["tuner_why_not"] = t.unresolved.empty() ? 0 : 1;
    state.counters["opt_us"] = row->optimum ? static_cast<double>(row->optimum->rx_usecs) : -1;
    state.counters["opt_ints"] = row->optimum ? row->optimum->interrupts_per_s : -1;
    state.counters["tuner_vs_opt"] = VersusOptimum(*row).value_or(-1);
    state.counters["fill_drops_s"] = static_cast<double>(row->fill_math.drops) / s;
    state.counters["s0_drops_s"] = static_cast<double>(row->static0.drops) / s;
    state.counters["s50_drops_s"] = static_cast<double>(row->static50.drops) / s;
    state.counters["ixgbe_drops_s"] = static_cast<double>(row->ixgbe.drops) / s;
    state.counters["dim_drops_s"] = static_cast<double>(row->dim.drops) / s;
    state.counters["s0_ints"] = row->static0.ints_per_s;
    state.counters["ixgbe_ints"] = row->ixgbe.ints_per_s;
    state.counters["dim_ints"] = row->dim.ints_per_s;
    if (!t.unresolved.empty()) state.SetLabel(t.unresolved);
  }
}

// The whole matrix in one row of counts: the figures tuner/README.md reports.
void BM_MatrixSummary(benchmark::State& state) {
  for (auto _ : state) {
    double scenarios = 0, drop_free = 0, grown = 0, why_not = 0, why_not_dropped = 0;
    double false_claims = 0, opt_exists = 0, drop_free_where_opt = 0, compared = 0;
    double within_1_1 = 0, fill_drop_free_where_opt = 0, worst_ratio = 0;
    std::vector<double> grown_ints;  // the tuner's interrupt rate where it grew the buffer
    for (const MatrixPoint& p : FullMatrix()) {
      absl::StatusOr<MatrixRow> row = EvaluateMatrixPoint(p);
      if (!row.ok()) {
        state.SkipWithError(absl::StrCat(MatrixPointName(p), ": ", row.status().message()).c_str());
        return;
      }
      const TunerReplay& t = row->tuner;
      if (row->tuner_dropping_seeds < 0) {
        state.SkipWithError(absl::StrCat(MatrixPointName(p), ": a verdict run failed").c_str());
        return;
      }
      const bool tuner_drop_free = row->tuner_dropping_seeds == 0;
      ++scenarios;
      if (t.buffer_grown) {
        ++grown;
        grown_ints.push_back(t.replay.interrupts_per_s);
      }
      if (tuner_drop_free) ++drop_free;
      if (!t.unresolved.empty()) {
        ++why_not;
        if (!tuner_drop_free) ++why_not_dropped;
      } else if (!tuner_drop_free) {
        ++false_claims;
      }
      if (row->optimum) {
        ++opt_exists;
        if (tuner_drop_free) ++drop_free_where_opt;
        if (row->fill_math.drops == 0) ++fill_drop_free_where_opt;
      }
      if (std::optional<double> ratio = VersusOptimum(*row); ratio && tuner_drop_free) {
        ++compared;
        if (*ratio <= 1.1) ++within_1_1;
        worst_ratio = std::max(worst_ratio, *ratio);
      }
    }
    state.counters["scenarios"] = scenarios;
    state.counters["drop_free"] = drop_free;
    state.counters["buffer_grown"] = grown;
    if (!grown_ints.empty()) {
      // The upper median: what the grown buffers' interrupt rates are mostly at or below.
      std::nth_element(grown_ints.begin(),
                       grown_ints.begin() + static_cast<std::ptrdiff_t>(grown_ints.size() / 2),
                       grown_ints.end());
      state.counters["grown_median_ints"] = grown_ints[grown_ints.size() / 2];
    }
    state.counters["why_not"] = why_not;
    state.counters["why_not_dropped"] = why_not_dropped;
    state.counters["false_claims"] = false_claims;
    state.counters["opt_exists"] = opt_exists;
    state.counters["drop_free_where_opt"] = drop_free_where_opt;
    state.counters["fill_drop_free_where_opt"] = fill_drop_free_where_opt;
    state.counters["compared"] = compared;
    state.counters["within_1_1x"] = within_1_1;
    state.counters["worst_vs_opt"] = worst_ratio;
  }
}

// How many seeds a drop-free verdict needs: the settings kVerdictSeeds' comment cites, on as many
// seeds as found their drops and on the first few only.
void BM_DroppingSeeds(benchmark::State& state, MatrixPoint p, int64_t rx_usecs, uint64_t seeds,
                      uint64_t first_seeds) {
  for (auto _ : state) {
    const int dropping = DroppingSeeds(MatrixScenario(p), rx_usecs, false, seeds);
    const int dropping_first = DroppingSeeds(MatrixScenario(p), rx_usecs, false, first_seeds);
    if (dropping < 0 || dropping_first < 0) {
      state.SkipWithError("a run failed");
      return;
    }
    state.counters["seeds"] = static_cast<double>(seeds);
    state.counters["dropping_seeds"] = dropping;
    state.counters["first_seeds"] = static_cast<double>(first_seeds);
    state.counters["dropping_in_first"] = dropping_first;
  }
}

int RegisterMatrix() {
  const MatrixPoint sparse_bursts{10'000, 1514, 65536, 2000, ArrivalPattern::kOnOff};
  for (auto [rx_usecs, seeds, first_seeds] :
       {std::tuple<int64_t, uint64_t, uint64_t>{960, 300, 8},
        std::tuple<int64_t, uint64_t, uint64_t>{620, 128, 32}}) {
    benchmark::RegisterBenchmark(absl::StrCat("DroppingSeeds/", MatrixPointName(sparse_bursts), "/",
                                              rx_usecs, "us/", seeds, "seeds")
                                     .c_str(),
                                 BM_DroppingSeeds, sparse_bursts, rx_usecs, seeds, first_seeds)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  for (const MatrixPoint& p : FullMatrix()) {
    benchmark::RegisterBenchmark(absl::StrCat("Matrix/", MatrixPointName(p)).c_str(), BM_Matrix, p)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("MatrixSummary", BM_MatrixSummary)
      ->Iterations(1)
      ->Unit(benchmark::kSecond);
  return 0;
}
const int kMatrixRegistered = RegisterMatrix();

}  // namespace
}  // namespace nictune::tuner

BENCHMARK_MAIN();
