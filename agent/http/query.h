// SPDX-License-Identifier: Apache-2.0
// Strict parsing of query strings: every byte is accounted for, unknown or repeated parameters
// are errors rather than silently ignored, so a typo in a script fails loudly.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace nictune::http {

inline constexpr size_t kMaxQueryBytes = 4096;

// "a=1&b=x%2Fy" -> {{"a","1"},{"b","x/y"}}, in order. '+' decodes to a space (form encoding), so
// a '+' in a value must be sent as %2B. Fails on empty parameters ("a=1&&b=2"), a parameter
// without '=', an empty name, a malformed %-escape, decoded control bytes, or more than
// kMaxQueryBytes bytes.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseQueryString(
    absl::string_view query);

// A time parameter of the history and changes queries: RFC 3339 ("2025-01-02T03:04:05Z") or Unix
// seconds with up to 9 fraction digits ("1735787045.5"), in 1970..9999. InvalidArgument naming
// the parameter and the value otherwise.
absl::StatusOr<absl::Time> ParseTimeParameter(absl::string_view name, const std::string& value);

// GET /api/v1/history?series=a,b&since=&until=&step=
struct HistoryQuery {
  std::vector<std::string> series;
  absl::Time since;
  absl::Time until;
  absl::Duration step;
};

inline constexpr size_t kMaxHistorySeries = 32;
inline constexpr int64_t kMaxHistoryPoints = 11000;  // per series, as Prometheus' query_range
inline constexpr absl::Duration kDefaultHistoryRange = absl::Hours(1);
inline constexpr absl::Duration kDefaultHistoryStep = absl::Seconds(10);

// series is required: 1 to kMaxHistorySeries comma-separated names of [A-Za-z0-9_.:-] starting
// with a letter or '_'. since/until are RFC 3339 times ("2025-01-02T03:04:05Z") or Unix seconds
// ("1735787045.5"); until defaults to now and since to until - 1 h. step is a duration ("10s",
// "1m30s") or seconds ("15"), from 1 ms to 24 h, default 10 s. since must be before until and the
// range must not hold more than kMaxHistoryPoints steps.
absl::StatusOr<HistoryQuery> ParseHistoryQuery(absl::string_view query, absl::Time now);

}  // namespace nictune::http
