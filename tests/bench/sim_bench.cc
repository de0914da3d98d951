// SPDX-License-Identifier: Apache-2.0
// Simulator figures: how fast it runs (one simulated second of 1 Mpps), and the scenario matrix
// that judges the tuner (Recommend() on what the agent would observe, replayed in the simulator
// with the buffer it grows: tuner/sim_replay.h) against the exhaustive sweep's optimum and the
// baselines: the raw fill math, static rx-usecs 0 and 50, ixgbe's adaptive ITR with seed 001's
// 12K floor and without it (the 8K bulk class before the patch), and DIM. Every policy is judged
// over the same kVerdictSeeds sets of gap phases as the tuner, at the scenario's buffer and, where
// the tuner grew it, again at the tuner's. Figures are reported as counters and tables, never
// asserted.
//
//   build/tests/bench/sim_bench --benchmark_filter=OneSecond
//   build/tests/bench/sim_bench --benchmark_filter=MatrixSummary   (the tables: docs/benchmarks.md)
//   build/tests/bench/sim_bench --benchmark_filter='Matrix/' --benchmark_counters_tabular=true
//   NICTUNE_MATRIX_MARGIN=0.05 build/tests/bench/sim_bench --benchmark_filter=MatrixSummary
//   build/tests/bench/sim_bench --benchmark_filter=MatrixMargins   (the tuner at six margins)
//   build/tests/bench/sim_bench --benchmark_filter=DroppingSeeds
// (the tuner's margin for the matrix; the default is PolicyConfig's)
#include <algorithm>
#include <array>
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
#include "tuner/burst_model.h"
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

// 64-byte frames are left out: the rx buffer model charges them the same 2304 B as 1514-byte
// frames, so their tuner and optimum rows were the 1514-byte rows again (only ixgbe's and DIM's
// byte-driven classes differed, in 6 of 48).
std::vector<MatrixPoint> FullMatrix() {
  return MatrixPoints({
      .rates_pps = {10'000, 100'000, 812'744, 2'000'000},
      .frame_bytes = {1514, 9000},
      .rcvbuf_bytes = {65536, 212992, 8 << 20},
      .drain_gaps_us = {0, 2000},
      .patterns = {ArrivalPattern::kConstant, ArrivalPattern::kOnOff},
  });
}

ModerationConfig StaticAt(int64_t rx_usecs) {
  ModerationConfig m;
  m.fixed.rx_usecs = rx_usecs;
  return m;
}

// Seeds of 1..seeds (the scenario's own first; 1 without a gap) whose run at rx_usecs dropped,
// counting stopped at the first when stop_at_first; -1 when a run failed.
int DroppingSeeds(SimScenario s, int64_t rx_usecs, bool stop_at_first = false,
                  uint64_t seeds = kVerdictSeeds) {
  s.moderation = StaticAt(rx_usecs);
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
  MatrixPoint point;
  TunerReplay tuner;
  PolicyRun tuner_run;  // at the tuner's rx-usecs and buffer, over the verdict seeds
  // At the scenario's own buffer: the lowest interrupt rate drop-free over every verdict seed.
  std::optional<SweepPoint> optimum;
  std::vector<PolicyRun> baselines;  // kBaselines' order, at the scenario's buffer
  // At the tuner's buffer, where it grew one: the baselines given the same memory.
  std::optional<std::vector<PolicyRun>> baselines_at_grown;
};

// The optimum: fine steps up to 100 us, coarse beyond; the drop-free points from the lowest
// interrupt rate up, until one stays drop-free over every verdict seed.
absl::StatusOr<std::optional<SweepPoint>> SweepOptimum(const SimScenario& base) {
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
    const int dropping = DroppingSeeds(base, point.rx_usecs, /*stop_at_first=*/true);
    if (dropping < 0) return absl::InternalError("a verdict run failed");
    if (dropping == 0) return point;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<PolicyRun>> RunBaselines(const MatrixPoint& p, const SimScenario& s) {
  std::vector<PolicyRun> out;
  for (const Baseline b : kBaselines) {
    absl::StatusOr<PolicyRun> run = RunOverSeeds(s, BaselineModeration(b, p, s));
    if (!run.ok()) return run.status();
    out.push_back(*run);
  }
  return out;
}

// The tuner's part of a row: its replay and its run over the verdict seeds.
absl::StatusOr<MatrixRow> EvaluateTuner(const MatrixPoint& p, const PolicyConfig& config) {
  const SimScenario base = MatrixScenario(p);
  MatrixRow row;
  row.point = p;
  absl::StatusOr<TunerReplay> tuner = ReplayTuner(base, config, kMatrixRxUsecsMax);
  if (!tuner.ok()) return tuner.status();
  row.tuner = *std::move(tuner);
  SimScenario tuned = base;
  tuned.rcvbuf_bytes = row.tuner.rcvbuf_bytes;
  absl::StatusOr<PolicyRun> tuner_run = RunOverSeeds(tuned, StaticAt(row.tuner.rx_usecs));
  if (!tuner_run.ok()) return tuner_run.status();
  row.tuner_run = *tuner_run;
  return row;
}

absl::StatusOr<MatrixRow> EvaluateMatrixPoint(const MatrixPoint& p) {
  absl::StatusOr<MatrixRow> evaluated = EvaluateTuner(p, MatrixPolicy());
  if (!evaluated.ok()) return evaluated.status();
  MatrixRow& row = *evaluated;
  const SimScenario base = MatrixScenario(p);
  SimScenario tuned = base;
  tuned.rcvbuf_bytes = row.tuner.rcvbuf_bytes;
  absl::StatusOr<std::optional<SweepPoint>> optimum = SweepOptimum(base);
  if (!optimum.ok()) return optimum.status();
  row.optimum = *optimum;
  absl::StatusOr<std::vector<PolicyRun>> baselines = RunBaselines(p, base);
  if (!baselines.ok()) return baselines.status();
  row.baselines = *baselines;
  if (row.tuner.buffer_grown) {
    baselines = RunBaselines(p, tuned);
    if (!baselines.ok()) return baselines.status();
    row.baselines_at_grown = *baselines;
  }
  return evaluated;
}

// The tuner's interrupt rate over the optimum's; only where the tuner kept the scenario's buffer
// (a grown buffer is a different scenario from the one the sweep optimised).
// Why the tuner stops short of the sweep's optimum, in its model's terms: the optimum delivers more
// packets per interrupt (at the peak rate) than the margin leaves usable of the socket's capacity,
// or, when it does not, the drain gap or the cycle stretch puts the optimum where the model does
// not reach.
std::string WhyAboveOptimum(const MatrixRow& row) {
  const SimScenario scenario = MatrixScenario(row.point);
  const double margin = MatrixPolicy().margin;
  const double capacity = static_cast<double>(scenario.rcvbuf_bytes) /
                          static_cast<double>(TruesizeBytes(scenario.frame));
  const double usable = UsablePackets(capacity, margin);
  // At the peak rate: a burst's (1 ms on, 1 ms off: twice the mean) for the on/off pattern.
  const double peak_pps =
      row.point.rate_pps * (row.point.pattern == ArrivalPattern::kOnOff ? 2.0 : 1.0);
  const auto delivered = [&](int64_t rx_usecs) {
    return std::floor(peak_pps * static_cast<double>(rx_usecs) * 1e-6) + 1;
  };
  const std::string numbers = absl::StrFormat(
      "tuner %d us (%.0f packets an interrupt), optimum %d us (%.0f); C = %.2f packets, %.2f usable "
      "at margin %.2f",
      row.tuner.rx_usecs, delivered(row.tuner.rx_usecs), row.optimum->rx_usecs,
      delivered(row.optimum->rx_usecs), capacity, usable, margin);
  if (delivered(row.optimum->rx_usecs) > usable) {
    return absl::StrCat("the margin: the optimum fills more than the usable share; ", numbers);
  }
  if (row.point.drain_gap_us > 0) {
    return absl::StrCat("the drain gap: the model holds a gap's arrivals at the peak rate; ",
                        numbers);
  }
  // Otherwise the model's cycle stretch: the reader shares the softirq's CPU, so packets that
  // arrive while a poll runs join the delivery.
  return absl::StrCat("the cycle stretch (the reader shares the softirq's CPU): ", numbers);
}

std::optional<double> VersusOptimum(const MatrixRow& row) {
  if (!row.optimum || row.optimum->interrupts_per_s <= 0 || row.tuner.buffer_grown) {
    return std::nullopt;
  }
  // Both on the scenario's own seed, as the sweep ran.
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
    state.counters["tuner_us"] = static_cast<double>(t.rx_usecs);
    state.counters["tuner_rcvbuf"] = static_cast<double>(t.rcvbuf_bytes);
    state.counters["tuner_ints"] = row->tuner_run.ints_per_s;
    state.counters["tuner_drops_s"] = row->tuner_run.drops_per_s;
    state.counters["tuner_dropping_seeds"] = row->tuner_run.dropping_seeds;
    state.counters["tuner_why_not"] = t.unresolved.empty() ? 0 : 1;
    state.counters["opt_us"] = row->optimum ? static_cast<double>(row->optimum->rx_usecs) : -1;
    state.counters["opt_ints"] = row->optimum ? row->optimum->interrupts_per_s : -1;
    state.counters["tuner_vs_opt"] = VersusOptimum(*row).value_or(-1);
    for (size_t b = 0; b < std::size(kBaselines); ++b) {
      const std::string key = BaselineKey(kBaselines[b]);
      state.counters[key + "_drops_s"] = row->baselines[b].drops_per_s;
      state.counters[key + "_ints"] = row->baselines[b].ints_per_s;
      if (row->baselines_at_grown) {
        state.counters[key + "_grown_drops_s"] = (*row->baselines_at_grown)[b].drops_per_s;
        state.counters[key + "_grown_ints"] = (*row->baselines_at_grown)[b].ints_per_s;
      }
    }
    if (!t.unresolved.empty()) state.SetLabel(t.unresolved);
  }
}

// A policy's figures over the matrix, side by side with the others'.
struct PolicyTotals {
  int scenarios = 0;
  int drop_free = 0;
  int with_opt = 0;             // scenarios where a drop-free static setting exists
  int drop_free_where_opt = 0;  // of those
  std::vector<double> ints;
  double drops_per_s = 0;  // summed over the scenarios
  void Add(const PolicyRun& run, bool opt_exists) {
    ++scenarios;
    if (run.drop_free()) ++drop_free;
    if (opt_exists) ++with_opt;
    if (run.drop_free() && opt_exists) ++drop_free_where_opt;
    ints.push_back(run.ints_per_s);
    drops_per_s += run.drops_per_s;
  }
  // The upper median: what the interrupt rates are mostly at or below.
  double MedianInts() {
    if (ints.empty()) return 0;
    std::nth_element(ints.begin(), ints.begin() + static_cast<std::ptrdiff_t>(ints.size() / 2),
                     ints.end());
    return ints[ints.size() / 2];
  }
};

struct MatrixTotals {
  int scenarios = 0, grown = 0, why_not = 0, why_not_dropped = 0, false_claims = 0;
  int opt_exists = 0, compared = 0, within_1_05 = 0, within_1_1 = 0;
  double worst_ratio = 0;
  PolicyTotals tuner;
  std::array<PolicyTotals, std::size(kBaselines)> baselines;
  std::array<PolicyTotals, std::size(kBaselines)> baselines_at_grown;
  PolicyTotals tuner_where_grown;
  std::vector<std::string> above_1_05;  // "scenario: ratio"

  void Add(const MatrixRow& row) {
    ++scenarios;
    const bool opt = row.optimum.has_value();
    if (opt) ++opt_exists;
    tuner.Add(row.tuner_run, opt);
    for (size_t b = 0; b < row.baselines.size(); ++b) baselines[b].Add(row.baselines[b], opt);
    if (row.tuner.buffer_grown) {
      ++grown;
      tuner_where_grown.Add(row.tuner_run, opt);
    }
    for (size_t b = 0; row.baselines_at_grown && b < row.baselines_at_grown->size(); ++b) {
      baselines_at_grown[b].Add((*row.baselines_at_grown)[b], opt);
    }
    const bool claimed = row.tuner.unresolved.empty();
    if (!claimed) ++why_not;
    if (!claimed && !row.tuner_run.drop_free()) ++why_not_dropped;
    if (claimed && !row.tuner_run.drop_free()) ++false_claims;
    if (std::optional<double> ratio = VersusOptimum(row); ratio && row.tuner_run.drop_free()) {
      ++compared;
      if (*ratio <= 1.05) ++within_1_05;
      if (*ratio <= 1.1) ++within_1_1;
      if (*ratio > 1.05) {
        above_1_05.push_back(absl::StrFormat("%s: %.3f, %s", MatrixPointName(row.point), *ratio,
                                             WhyAboveOptimum(row)));
      }
      worst_ratio = std::max(worst_ratio, *ratio);
    }
  }
};

std::string Bytes(int64_t bytes) {
  if (bytes >= 1'000'000 && bytes % (1 << 20) != 0) {
    return absl::StrFormat("%.2f MB", static_cast<double>(bytes) / 1e6);
  }
  if (bytes % (1 << 20) == 0) return absl::StrFormat("%dM", bytes >> 20);
  if (bytes % 1024 == 0) return absl::StrFormat("%dK", bytes >> 10);
  return absl::StrCat(bytes, " B");
}

// "0 (9775/s)": drops/s over the seeds and the interrupt rate; the dropping seeds when some but
// not all dropped.
std::string Cell(const PolicyRun& run) {
  std::string out = absl::StrFormat("%.0f (%.0f/s)", run.drops_per_s, run.ints_per_s);
  if (run.dropping_seeds > 0 && static_cast<uint64_t>(run.dropping_seeds) < run.seeds) {
    absl::StrAppend(&out, absl::StrFormat(" %d/%d seeds", run.dropping_seeds, run.seeds));
  }
  return out;
}

std::string ScenarioName(const MatrixPoint& p) {
  return absl::StrFormat("%.0fpps %dB %s gap%s %s", p.rate_pps, p.frame_bytes,
                         Bytes(p.rcvbuf_bytes), p.drain_gap_us > 0 ? "2ms" : "0",
                         p.pattern == ArrivalPattern::kConstant ? "constant" : "bursty");
}

void PrintRowHeader() {
  std::printf(
      "| scenario | rcvbuf | tuner us | tuner ints/s | tuner dropping seeds | opt us | opt ints/s "
      "| tuner/opt |");
  for (const Baseline b : kBaselines) std::printf(" %s |", BaselineName(b));
  std::printf("\n|---|---|---:|---:|---:|---:|---:|---:|");
  for (size_t b = 0; b < std::size(kBaselines); ++b) std::printf("---|");
  std::printf("\n");
}

void PrintRow(const MatrixRow& row) {
  const TunerReplay& t = row.tuner;
  const std::optional<double> ratio = VersusOptimum(row);
  std::printf("| %s | %s | %d | %.0f | %d/%d%s | %s | %s | %s |", ScenarioName(row.point).c_str(),
              Bytes(t.rcvbuf_bytes).c_str(), static_cast<int>(t.rx_usecs),
              row.tuner_run.ints_per_s, row.tuner_run.dropping_seeds,
              static_cast<int>(row.tuner_run.seeds), t.unresolved.empty() ? "" : " (says why)",
              row.optimum ? absl::StrCat(row.optimum->rx_usecs).c_str() : "none",
              row.optimum ? absl::StrFormat("%.0f", row.optimum->interrupts_per_s).c_str() : "-",
              ratio ? absl::StrFormat("%.2f", *ratio).c_str() : "-");
  for (const PolicyRun& run : row.baselines) std::printf(" %s |", Cell(run).c_str());
  std::printf("\n");
  if (!row.baselines_at_grown) return;
  std::printf("| ... the baselines at the tuner's %s | %s | | | | | | |",
              Bytes(t.rcvbuf_bytes).c_str(), Bytes(t.rcvbuf_bytes).c_str());
  for (const PolicyRun& run : *row.baselines_at_grown) std::printf(" %s |", Cell(run).c_str());
  std::printf("\n");
}

void PrintPolicyLine(const char* name, PolicyTotals& totals) {
  std::printf("| %s | %d of %d | %d of %d | %.0f | %.0f |\n", name, totals.drop_free,
              totals.scenarios, totals.drop_free_where_opt, totals.with_opt, totals.MedianInts(),
              totals.drops_per_s);
}

void PrintSummary(MatrixTotals& m) {
  std::printf("\n| policy | drop-free (all seeds) | where a static setting is | median ints/s | "
              "drops/s summed |\n|---|---:|---:|---:|---:|\n");
  PrintPolicyLine("tuner", m.tuner);
  for (size_t b = 0; b < m.baselines.size(); ++b) {
    PrintPolicyLine(BaselineName(kBaselines[b]), m.baselines[b]);
  }
  std::printf("\nWhere the tuner grew the buffer (%d scenarios), every policy at that buffer:\n\n"
              "| policy | drop-free (all seeds) | where a static setting is | median ints/s | "
              "drops/s summed |\n|---|---:|---:|---:|---:|\n",
              m.grown);
  PrintPolicyLine("tuner", m.tuner_where_grown);
  for (size_t b = 0; b < m.baselines_at_grown.size(); ++b) {
    PrintPolicyLine(BaselineName(kBaselines[b]), m.baselines_at_grown[b]);
  }
  std::printf("\nAbove 1.05x of the optimum (%zu of %d compared):\n", m.above_1_05.size(),
              m.compared);
  for (const std::string& line : m.above_1_05) std::printf("- %s\n", line.c_str());
}

// The whole matrix: every row and the totals as tables (docs/benchmarks.md), the counts as
// counters.
void BM_MatrixSummary(benchmark::State& state) {
  for (auto _ : state) {
    MatrixTotals m;
    std::printf("Tuner margin %.2f; drops/s and interrupts/s are means over %d seeds of gap "
                "phases behind a gap, one run without.\n\n",
                MatrixPolicy().margin, static_cast<int>(kVerdictSeeds));
    PrintRowHeader();
    for (const MatrixPoint& p : FullMatrix()) {
      absl::StatusOr<MatrixRow> row = EvaluateMatrixPoint(p);
      if (!row.ok()) {
        state.SkipWithError(absl::StrCat(MatrixPointName(p), ": ", row.status().message()).c_str());
        return;
      }
      PrintRow(*row);
      m.Add(*row);
    }
    PrintSummary(m);
    std::fflush(stdout);
    state.counters["scenarios"] = m.scenarios;
    state.counters["drop_free"] = m.tuner.drop_free;
    state.counters["buffer_grown"] = m.grown;
    state.counters["grown_median_ints"] = m.tuner_where_grown.MedianInts();
    state.counters["why_not"] = m.why_not;
    state.counters["why_not_dropped"] = m.why_not_dropped;
    state.counters["false_claims"] = m.false_claims;
    state.counters["opt_exists"] = m.opt_exists;
    state.counters["drop_free_where_opt"] = m.tuner.drop_free_where_opt;
    state.counters["compared"] = m.compared;
    state.counters["within_1_05x"] = m.within_1_05;
    state.counters["within_1_1x"] = m.within_1_1;
    state.counters["worst_vs_opt"] = m.worst_ratio;
  }
}

// The margin side by side: the tuner's row at each margin against one optimum per scenario (the
// optimum and the baselines do not depend on the tuner's margin).
void BM_MatrixMargins(benchmark::State& state) {
  constexpr double kMargins[] = {0, 0.01, 0.02, 0.03, 0.05, 0.10};
  for (auto _ : state) {
    std::vector<std::optional<SweepPoint>> optima;
    for (const MatrixPoint& p : FullMatrix()) {
      absl::StatusOr<std::optional<SweepPoint>> optimum = SweepOptimum(MatrixScenario(p));
      if (!optimum.ok()) {
        state.SkipWithError(std::string(optimum.status().message()).c_str());
        return;
      }
      optima.push_back(*optimum);
    }
    std::printf("| margin | drop-free | false claims | says why | grown | within 1.05x | within "
                "1.1x | worst | median ints/s |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::string above;  // the scenarios above 1.05x, after the table
    for (const double margin : kMargins) {
      PolicyConfig config;
      config.margin = margin;
      MatrixTotals m;
      size_t i = 0;
      for (const MatrixPoint& p : FullMatrix()) {
        absl::StatusOr<MatrixRow> row = EvaluateTuner(p, config);
        if (!row.ok()) {
          state.SkipWithError(std::string(row.status().message()).c_str());
          return;
        }
        row->optimum = optima[i++];
        m.Add(*row);
      }
      std::printf("| %.2f | %d of %d | %d | %d | %d | %d of %d | %d of %d | %.2f | %.0f |\n",
                  margin, m.tuner.drop_free, m.scenarios, m.false_claims, m.why_not, m.grown,
                  m.within_1_05, m.compared, m.within_1_1, m.compared, m.worst_ratio,
                  m.tuner.MedianInts());
      std::fflush(stdout);
      for (const std::string& line : m.above_1_05) {
        absl::StrAppend(&above, absl::StrFormat("- margin %.2f: %s\n", margin, line));
      }
    }
    std::printf("\nAbove 1.05x of the optimum:\n%s", above.c_str());
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
  benchmark::RegisterBenchmark("MatrixMargins", BM_MatrixMargins)
      ->Iterations(1)
      ->Unit(benchmark::kSecond);
  return 0;
}
const int kMatrixRegistered = RegisterMatrix();

}  // namespace
}  // namespace nictune::tuner

BENCHMARK_MAIN();
