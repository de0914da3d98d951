// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_matrix.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "tuner/fill_math.h"
#include "tuner/sim_engine.h"
#include "tuner/sim_whatif.h"

namespace nictune::tuner {

std::vector<MatrixPoint> MatrixPoints(const MatrixAxes& axes) {
  std::vector<MatrixPoint> points;
  for (double rate : axes.rates_pps) {
    for (int64_t frame : axes.frame_bytes) {
      for (int64_t rcvbuf : axes.rcvbuf_bytes) {
        for (int64_t gap : axes.drain_gaps_us) {
          for (ArrivalPattern pattern : axes.patterns) {
            points.push_back({rate, frame, rcvbuf, gap, pattern});
          }
        }
      }
    }
  }
  return points;
}

std::string MatrixPointName(const MatrixPoint& p) {
  return absl::StrFormat("%.0fpps/%dB/rcvbuf%d/gap%dus/%s", p.rate_pps, p.frame_bytes,
                         p.rcvbuf_bytes, p.drain_gap_us,
                         p.pattern == ArrivalPattern::kConstant ? "constant" : "bursty");
}

SimScenario MatrixScenario(const MatrixPoint& p, const CostModel& cost) {
  FrameConfig frame;
  frame.frame_bytes = p.frame_bytes;
  WhatIfInput in;
  in.rate_pps = p.rate_pps;
  in.truesize_bytes = TruesizeBytes(frame);
  in.rcvbuf_bytes = p.rcvbuf_bytes;
  in.drain_gap_us = p.drain_gap_us;
  const int64_t gap_period_us = std::max<int64_t>(1000, 10 * p.drain_gap_us);  // sim_whatif.h
  in.duration_us =
      std::max<int64_t>(40'000, p.drain_gap_us > 0 ? kMatrixGapsPerRun * gap_period_us : 0);
  in.ring_size = 1024;
  in.cost = cost;
  in.pattern = p.pattern;
  SimScenario s = WhatIfScenario(in);
  s.frame.frame_bytes = p.frame_bytes;  // bytes matter to ixgbe's classes and DIM's stats
  return s;
}

uint64_t VerdictSeedsFor(const SimScenario& scenario) {
  return scenario.app.gap_period_ns == 0 ? 1 : kVerdictSeeds;
}

absl::StatusOr<PolicyRun> RunOverSeeds(SimScenario s, const ModerationConfig& moderation) {
  s.moderation = moderation;
  PolicyRun out;
  out.seeds = VerdictSeedsFor(s);
  for (uint64_t seed = 1; seed <= out.seeds; ++seed) {
    s.seed = seed;
    absl::StatusOr<SimResult> r = Simulate(s);
    if (!r.ok()) return r.status();
    const double seconds = static_cast<double>(r->duration_ns) * 1e-9;
    const uint64_t drops = r->socket_drops + r->ring_drops;
    if (drops > 0) ++out.dropping_seeds;
    out.drops_per_s += static_cast<double>(drops) / seconds / static_cast<double>(out.seeds);
    out.ints_per_s += r->interrupts_per_s / static_cast<double>(out.seeds);
  }
  return out;
}

namespace {

struct BaselineNames {
  Baseline baseline;
  const char* name;
  const char* key;
};
constexpr BaselineNames kBaselineNames[] = {
    {Baseline::kFillMath, "fill math", "fill"},
    {Baseline::kStatic0, "static 0", "s0"},
    {Baseline::kStatic50, "static 50", "s50"},
    {Baseline::kIxgbe, "ixgbe 12K floor", "ixgbe"},
    {Baseline::kIxgbeBeforeSeed001, "ixgbe 8K (before)", "ixgbe8k"},
    {Baseline::kDim, "DIM", "dim"},
};

const BaselineNames& NamesOf(Baseline baseline) {
  for (const BaselineNames& names : kBaselineNames) {
    if (names.baseline == baseline) return names;
  }
  return kBaselineNames[0];  // every Baseline is in the table
}

}  // namespace

const char* BaselineName(Baseline baseline) { return NamesOf(baseline).name; }

const char* BaselineKey(Baseline baseline) { return NamesOf(baseline).key; }

namespace {

ModerationConfig StaticAt(int64_t rx_usecs) {
  ModerationConfig m;
  m.fixed.rx_usecs = rx_usecs;
  return m;
}

// The raw fill math's interval (mean rate, margin 0.1), floored to whole us, capped: what the
// matrix used before the tuner path, kept as a baseline to show what the model adds.
int64_t FillMathRxUsecs(const MatrixPoint& p, const SimScenario& s) {
  absl::StatusOr<FillResult> fill =
      ComputeFill({.rate_pps = p.rate_pps,
                   .truesize_bytes = static_cast<double>(TruesizeBytes(s.frame)),
                   .rcvbuf_bytes = static_cast<double>(p.rcvbuf_bytes),
                   .drain_gap_s = static_cast<double>(p.drain_gap_us) * 1e-6,
                   .margin = 0.1});
  if (!fill.ok() || !(fill->max_interval_s > 0)) return 0;
  return static_cast<int64_t>(
      std::floor(std::min(fill->max_interval_s * 1e6, static_cast<double>(kMatrixRxUsecsMax))));
}

}  // namespace

ModerationConfig BaselineModeration(Baseline baseline, const MatrixPoint& point,
                                    const SimScenario& scenario) {
  ModerationConfig m;
  switch (baseline) {
    case Baseline::kFillMath:
      return StaticAt(FillMathRxUsecs(point, scenario));
    case Baseline::kStatic0:
      return StaticAt(0);
    case Baseline::kStatic50:
      return StaticAt(50);
    case Baseline::kIxgbe:
      m.kind = ModerationKind::kIxgbeAdaptive;
      return m;
    case Baseline::kIxgbeBeforeSeed001:
      m.kind = ModerationKind::kIxgbeAdaptive;
      m.ixgbe.bulk_latency_usecs = kIxgbeBulkLatencyBeforeSeed001Usecs;
      return m;
    case Baseline::kDim:
      m.kind = ModerationKind::kDim;
      return m;
  }
  return m;
}

}  // namespace nictune::tuner
