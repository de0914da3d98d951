#include "tuner/sim_matrix.h"

#include <algorithm>

#include "absl/strings/str_format.h"
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

}  // namespace nictune::tuner
