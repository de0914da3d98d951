// SPDX-License-Identifier: Apache-2.0
// GET /healthz: whether the sampling loop is alive, for a liveness probe (Kubernetes) or a load
// balancer. 200 while samples come on time, or while the agent is still starting (loading its BPF
// programs takes seconds on a busy host); 503 once the latest sample is older than a few
// intervals, which a stuck loop or a blocked kernel read causes while the HTTP thread still
// answers.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "agent/http/router.h"
#include "agent/service/service_state.h"

namespace nictune::http {

// Intervals a sample may be late before the agent counts as stuck, and never less than
// kMinStaleAfter: a 10 ms interval would otherwise flap on any scheduling delay.
inline constexpr int kStaleAfterIntervals = 5;
inline constexpr absl::Duration kMinStaleAfter = absl::Seconds(5);
// How long an agent with no sample yet counts as starting, not stuck, beyond its first interval
// (the first sample ends one interval after start, and --interval may be long).
inline constexpr absl::Duration kStartupGrace = absl::Seconds(60);

struct Health {
  bool ok = false;
  std::string state;  // "ok", "starting" or "stale"
  std::string detail;
};

Health HealthOf(const service::ServiceStatus& status, absl::Time now);

// The state must outlive the router. `now` is the wall clock (absl::Now in the agent).
absl::Status AddHealthRoute(Router& router, const service::ServiceState& state,
                            std::function<absl::Time()> now = absl::Now);

}  // namespace nictune::http
