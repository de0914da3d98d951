// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/status: mode, version, uptime, interval and window, the sources in use (and why not
// BPF), the BPF programs attached or disabled, store health and its last error, and the sampling
// counts (samples, last sample time, missed intervals).
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "agent/http/router.h"
#include "agent/service/service_state.h"
#include "nlohmann/json_fwd.hpp"

namespace nictune::http {

// The status as the route returns it; `now` gives the uptime.
nlohmann::json StatusJson(const service::ServiceStatus& status, absl::Time now);

// The state must outlive the router. `now` is the wall clock (absl::Now in the agent).
absl::Status AddStatusRoute(Router& router, const service::ServiceState& state,
                            std::function<absl::Time()> now = absl::Now);

}  // namespace nictune::http
