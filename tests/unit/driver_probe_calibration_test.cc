// SPDX-License-Identifier: Apache-2.0
// When the load asks for a new calibration, and what a calibration window makes of the kernel's
// run statistics.
#include "driver/bpf/probe_calibration.h"

#include <optional>
#include <vector>

#include "gtest/gtest.h"

namespace nictune::driver::bpf {
namespace {

using Rates = std::vector<std::optional<double>>;

TEST(ProbeCalibrationTest, AFourfoldMoveOfABusyHookAsksForACalibration) {
  // napi at 100k events/s when calibrated: 400k or 25k is a move, 300k or 30k is not.
  EXPECT_TRUE(LoadMovedSinceCalibration({100'000}, {400'000}));
  EXPECT_TRUE(LoadMovedSinceCalibration({100'000}, {25'000}));
  EXPECT_FALSE(LoadMovedSinceCalibration({100'000}, {300'000}));
  EXPECT_FALSE(LoadMovedSinceCalibration({100'000}, {30'000}));
  // A flood on a hook that was idle, and its end.
  EXPECT_TRUE(LoadMovedSinceCalibration({0}, {5'000}));
  EXPECT_TRUE(LoadMovedSinceCalibration({5'000}, {0}));
  // Below the floor at both ends, a move costs too little to matter.
  EXPECT_FALSE(LoadMovedSinceCalibration({10}, {900}));
  // Any hook of several; one not measured at either end is left out.
  EXPECT_TRUE(LoadMovedSinceCalibration({std::nullopt, 2'000, 50}, {7'000, 9'000, 50}));
  EXPECT_FALSE(LoadMovedSinceCalibration({std::nullopt, 2'000}, {90'000, std::nullopt}));
  EXPECT_FALSE(LoadMovedSinceCalibration({}, {90'000}));
}

TEST(ProbeCalibrationTest, AWindowGivesTheBodyPerRunAndTheRunsPerEvent) {
  const HookCost previous;
  const HookCost cost = Calibrated({.run_cnt = 100, .run_time_ns = 1'000},
                                   {.run_cnt = 10'100, .run_time_ns = 401'000}, 7, 5'007, previous);
  EXPECT_TRUE(cost.measured);
  EXPECT_DOUBLE_EQ(cost.body_ns_per_run, 40);
  EXPECT_DOUBLE_EQ(cost.runs_per_event, 2);
  EXPECT_DOUBLE_EQ(cost.ns_per_event(), 2 * (kDispatchFloorNsPerRun + 40));
  // Fewer than a thousand runs measure nothing.
  const HookCost few = Calibrated({.run_cnt = 0, .run_time_ns = 0},
                                  {.run_cnt = 999, .run_time_ns = 50'000}, 0, 999, previous);
  EXPECT_FALSE(few.measured);
  EXPECT_DOUBLE_EQ(few.body_ns_per_run, kDefaultBodyNsPerRun);
}

}  // namespace
}  // namespace nictune::driver::bpf
