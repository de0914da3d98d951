// SPDX-License-Identifier: Apache-2.0
// POST /api/v1/apply: one controller step now over the latest window's recommendations, or over
// the one naming {"knob", "target"}; the controller's bounds and guard window apply as in the
// sampling loop. Only in apply mode: otherwise 409 with the reason. Mutating: on TCP it needs
// the API token (the server's rule); the unix socket passes.
//
// 200 {"step": {readings, unreadable, actions, verified, gone, writes_failed, not_journaled,
// journal_error, summary}} (gone: knobs released because their device went away);
// 400 for a malformed body, 404 when no recommendation names the knob, 409 outside apply mode or
// before the first tuner window.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/service/tuning_control.h"

namespace nictune::http {

inline constexpr const char* kApplyPath = "/api/v1/apply";

// tuning must outlive the router.
absl::Status AddApplyRoute(Router& router, service::TuningControl& tuning);

}  // namespace nictune::http
