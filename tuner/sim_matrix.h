// The scenario matrix that judges the tuner in the simulator (tuner/README.md): a grid of rates,
// frame sizes, buffers, drain gaps and arrival patterns, each point the what-if's scenario with
// realistic costs and a 1024-descriptor ring. One definition for the matrix's unit test (a small
// grid) and tests/bench/sim_bench.cc (the full one), so that both judge the same scenarios.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace nictune::tuner
