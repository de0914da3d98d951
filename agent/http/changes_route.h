// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/changes?since=: the change journal (every kernel write the actuator made or is
// making, with the original value it owes the kernel) and the agent's events, since a time.
// since is RFC 3339 or Unix seconds as in the history query; without it, the whole journal (it is
// never evicted, one row per write) and the events still kept.
//
// 400 {"error", "detail"} for a bad parameter, 503 when the journal or the store fails. Without a
// history store (it could not open) the events are an empty list.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/store/journal.h"
#include "agent/store/store.h"

namespace nictune::http {

inline constexpr const char* kChangesPath = "/api/v1/changes";

// The journal and the store (which may be null) must outlive the router.
absl::Status AddChangesRoute(Router& router, store::Journal& journal, store::Store* store);

}  // namespace nictune::http
