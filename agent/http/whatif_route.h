// POST /api/v1/whatif: the fill math and the simulator on the numbers a person supplies, and the
// rx-usecs they lead to. It reads and writes nothing of the host, so it needs no token.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"

namespace nictune::http {

inline constexpr const char* kWhatifPath = "/api/v1/whatif";

// The simulated traffic lasts 1 s, shortened at high rates to about kWhatifSimulatedPackets
// packets (the simulator's work is one event per packet), but never below 10 interrupt intervals
// and 2 drain-gap periods.
inline constexpr int64_t kMaxWhatifSimulatedUs = 1'000'000;
inline constexpr double kWhatifSimulatedPackets = 2e6;

absl::Status AddWhatifRoute(Router& router);

}  // namespace nictune::http
