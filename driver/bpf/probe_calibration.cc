// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/probe_calibration.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "driver/errno_text.h"

namespace nictune::driver::bpf {

absl::StatusOr<StatsWindow> StatsWindow::Open() {
  const int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("bpf: enable run-time statistics: ", ErrnoText(errno)));
  }
  return StatsWindow(fd);
}

StatsWindow::~StatsWindow() {
  if (fd_ >= 0) ::close(fd_);
}

HookCost DefaultCost(const HookSpec& spec) {
  return HookCost{.measured = false,
                  .body_ns_per_run = kDefaultBodyNsPerRun,
                  .runs_per_event = spec.default_runs_per_event};
}

namespace {
constexpr uint64_t kFewestRuns = 1000;
}  // namespace

bool LoadMovedSinceCalibration(const std::vector<std::optional<double>>& at_calibration,
                               const std::vector<std::optional<double>>& now) {
  for (size_t i = 0; i < at_calibration.size() && i < now.size(); ++i) {
    if (!at_calibration[i] || !now[i]) continue;
    const double high = std::max(*at_calibration[i], *now[i]);
    const double low = std::min(*at_calibration[i], *now[i]);
    if (high >= kRecalibrationMinEventsPerS && low * kRecalibrationRateFactor <= high) return true;
  }
  return false;
}

HookCost Calibrated(const RunStats& before, const RunStats& after, uint64_t events_before,
                    uint64_t events_after, const HookCost& previous) {
  if (after.run_cnt < before.run_cnt + kFewestRuns || events_after <= events_before ||
      after.run_time_ns < before.run_time_ns) {
    return previous;
  }
  const auto runs = static_cast<double>(after.run_cnt - before.run_cnt);
  return HookCost{
      .measured = true,
      .body_ns_per_run = static_cast<double>(after.run_time_ns - before.run_time_ns) / runs,
      .runs_per_event = runs / static_cast<double>(events_after - events_before),
      .gate_body_ns_per_run = previous.gate_body_ns_per_run};
}

HookCost CalibratedGate(const RunStats& before, const RunStats& after, const HookCost& previous) {
  if (after.run_cnt < before.run_cnt + kFewestRuns || after.run_time_ns < before.run_time_ns) {
    return previous;
  }
  HookCost cost = previous;
  cost.gate_body_ns_per_run = static_cast<double>(after.run_time_ns - before.run_time_ns) /
                              static_cast<double>(after.run_cnt - before.run_cnt);
  return cost;
}

}  // namespace nictune::driver::bpf
