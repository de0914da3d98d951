// GET /api/v1/changes?since=: the change journal (every kernel write the actuator made or is
// making, with the original value it owes the kernel) and the agent's events, since a time.
// since is RFC 3339 or Unix seconds as in the history query; without it, the whole journal (it is
// never evicted, one row per write) and the events still kept.
//
// 400 {"error", "detail"} for a bad parameter, 503 when the store fails.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/store/store.h"

namespace nictune::http {

inline constexpr const char* kChangesPath = "/api/v1/changes";

// The store must outlive the router.
absl::Status AddChangesRoute(Router& router, store::Store& store);

}  // namespace nictune::http
