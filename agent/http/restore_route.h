// SPDX-License-Identifier: Apache-2.0
// POST /api/v1/restore: every original of this boot back (the actuator's RestoreAll). Allowed in
// any mode: it only puts originals back; knobs someone else changed are left to them. Mutating:
// token on TCP. The body is ignored (may be empty).
//
// 200 {"restored", "kept", "left", "failed", "error"} when nothing failed; 500 with the same body
// when some original could not be put back (a later restore retries it); 503 when the journal
// cannot be read.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/service/tuning_control.h"

namespace nictune::http {

inline constexpr const char* kRestorePath = "/api/v1/restore";

absl::Status AddRestoreRoute(Router& router, service::TuningControl& tuning);

}  // namespace nictune::http
