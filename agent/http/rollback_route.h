// SPDX-License-Identifier: Apache-2.0
// POST /api/v1/rollback {"change_id": N} or {"knob", "target"}: puts back the original of the
// knob (the value before our first write of it this boot) and closes its journal rows
// rolled_back. Allowed in any mode (it only puts an original back). Mutating: token on TCP.
//
// 200 {"result": {...}} when the original is back (or was already there); 409 with the result
// when the actuator could not (someone else owns the knob, or the write failed); 404 for an
// unknown or closed change id; 400 for a malformed body; 503 when the journal cannot be read.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/service/tuning_control.h"

namespace nictune::http {

inline constexpr const char* kRollbackPath = "/api/v1/rollback";

absl::Status AddRollbackRoute(Router& router, service::TuningControl& tuning);

}  // namespace nictune::http
