// SPDX-License-Identifier: Apache-2.0
// The distinct timestamps of one resolution within a range, found by one index seek each (a
// "loose index scan"). Rows are keyed (step, ts, series), so these seeks are what lets a reader
// visit one series' points without walking every other series' rows.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

// Up to `limit` timestamps t with from <= t < until, ascending. `truncated` tells whether more
// exist in the range.
absl::StatusOr<std::vector<int64_t>> DistinctStamps(Connection& connection, int64_t step_ms,
                                                    int64_t from_ms, int64_t until_ms, size_t limit,
                                                    bool& truncated);

// The oldest timestamp at or after `from_ms` at this resolution, if any.
absl::StatusOr<std::optional<int64_t>> FirstStampFrom(Connection& connection, int64_t step_ms,
                                                      int64_t from_ms);

}  // namespace nictune::store
