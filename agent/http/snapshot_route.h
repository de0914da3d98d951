// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/snapshot: the latest interval's window report (the JSON of `nictuned --once
// --json`); 503 before the first interval has been measured.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/service/service_state.h"

namespace nictune::http {

// The state must outlive the router.
absl::Status AddSnapshotRoute(Router& router, const service::ServiceState& state);

}  // namespace nictune::http
