// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/history?series=a,b&since=&until=&step=&label=device=eth0: stored samples of one or
// more series over a range, as {series: [{name, labels, resolution_s, points: [[unix_s, value],
// ...]}], resolution_s}. Parameters as ParseHistoryQuery (query.h) plus any number of
// label=KEY=VALUE filters (a series matches when it carries every one of them).
//
// 400 {"error", "detail"} for a bad parameter or an answer over the store's bounds (the detail
// says to raise step or narrow the range), 404 for a series the store has never held, 503 when
// the store fails.
//
// GET /api/v1/history/series: {series: [name, ...]}, every name the store holds, sorted.
#pragma once

#include "absl/status/status.h"
#include "agent/http/router.h"
#include "agent/store/store.h"

namespace nictune::http {

inline constexpr const char* kHistoryPath = "/api/v1/history";
inline constexpr const char* kHistorySeriesPath = "/api/v1/history/series";
inline constexpr size_t kMaxHistoryLabels = 16;

// The store must outlive the router.
absl::Status AddHistoryRoute(Router& router, store::Store& store);

}  // namespace nictune::http
