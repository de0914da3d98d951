// SPDX-License-Identifier: Apache-2.0
// What one event of a hook costs, measured on the running host: the kernel counts each
// program's runs and run time only while statistics are enabled (BPF_ENABLE_STATS, held by a file
// descriptor for as long as a calibration lasts), which adds two clock reads to every run of every
// BPF program on the host; so the duty cycle calibrates for a short window every few minutes
// (probe_duty_cycle.h). The body is what the kernel times; the dispatch around it, which the
// kernel does not time and which costs more than a small body, is a measured constant.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "driver/bpf/duty_hook.h"

namespace nictune::driver::bpf {

// The dispatch to a program, which the kernel does not time, shows only in a flood's packet
// rate: empty programs cost a veth flood of one packet per poll 30-130 ns a run on this VM
// (tests/bench/bpf_overhead_bench.cc, docs/benchmarks.md "Probe overhead"). The budget takes the
// high end, so that it errs towards spending less than it may.
inline constexpr double kDispatchFloorNsPerRun = 129;
// Until a calibration measures them: a body of this many ns a run (the default set's programs
// measured 20-60 ns a run in kernel.bpf_stats).
inline constexpr double kDefaultBodyNsPerRun = 50;
// Until a calibration measures it: a closed gate's check and count, two inlined array lookups and
// an add. Calibrated, it reads about 50 ns more, as every body does: kernel.bpf_stats times its
// own clock reads (empty programs read 54-60 ns there).
inline constexpr double kDefaultGateBodyNsPerRun = 10;

// The statistics window: enabled while this is held.
class StatsWindow {
 public:
  static absl::StatusOr<StatsWindow> Open();
  StatsWindow(StatsWindow&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  StatsWindow& operator=(StatsWindow&&) = delete;
  StatsWindow(const StatsWindow&) = delete;
  StatsWindow& operator=(const StatsWindow&) = delete;
  ~StatsWindow();

 private:
  explicit StatsWindow(int fd) : fd_(fd) {}
  int fd_ = -1;
};

struct HookCost {
  bool measured = false;
  double body_ns_per_run = kDefaultBodyNsPerRun;
  double runs_per_event = 1;
  double gate_body_ns_per_run = kDefaultGateBodyNsPerRun;  // its gate closed

  // Dispatch and body of every run an event makes.
  double ns_per_event() const {
    return runs_per_event * (kDispatchFloorNsPerRun + body_ns_per_run);
  }
  // The same with the hook's gate closed.
  double gate_ns_per_event() const {
    return runs_per_event * (kDispatchFloorNsPerRun + gate_body_ns_per_run);
  }
};

// A cost measured at one load need not hold at another (the caches, the share of runs that take a
// program's longer path): a hook whose event rate moved this factor either way since the last
// calibration, busier than the floor at one end, asks for a calibration now, at most once in the
// gap.
inline constexpr double kRecalibrationRateFactor = 4;
inline constexpr double kRecalibrationMinEventsPerS = 1000;
inline constexpr absl::Duration kRecalibrationMinGap = absl::Seconds(30);

// Whether some hook's rate (nullopt: not measured) moved by kRecalibrationRateFactor between the
// rates of the last calibration and those `now`, index by index.
bool LoadMovedSinceCalibration(const std::vector<std::optional<double>>& at_calibration,
                               const std::vector<std::optional<double>>& now);

// A hook's cost before any calibration.
HookCost DefaultCost(const HookSpec& spec);

// The cost a calibration window measured: from the runs and events before and after it. Too few
// runs (under 1000) measure nothing: the previous cost stays.
HookCost Calibrated(const RunStats& before, const RunStats& after, uint64_t events_before,
                    uint64_t events_after, const HookCost& previous);
// The same for a gated hook whose gate was closed throughout the window: its closed runs' body.
HookCost CalibratedGate(const RunStats& before, const RunStats& after, const HookCost& previous);

}  // namespace nictune::driver::bpf
