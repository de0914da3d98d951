// SPDX-License-Identifier: Apache-2.0
// Answers a history query from the resolution that covers its range: the coarsest one whose step
// is no coarser than the step asked for, among those that reach back as far as the data does.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/store/records.h"
#include "agent/store/sqlite_connection.h"
#include "agent/store/store_options.h"

namespace nictune::store {

// Bounds that keep one query from holding the reader for long; beyond them the caller is told to
// raise the step or narrow the range.
inline constexpr int64_t kMaxPointsPerSeries = 11000;
inline constexpr int64_t kMaxRowLookups = 2'000'000;

// InvalidArgument for an empty or inverted range, a negative step, or an answer over the bounds.
absl::StatusOr<HistoryResult> ReadHistory(Connection& connection,
                                          const std::vector<Resolution>& resolutions,
                                          const HistoryQuery& query);

// The names of the series the store holds, sorted, each once whatever its labels.
absl::StatusOr<std::vector<std::string>> ReadSeriesNames(Connection& connection);

// Whether the store holds a series of that name (one index probe, not the whole list).
absl::StatusOr<bool> ReadHasSeries(Connection& connection, const std::string& name);

}  // namespace nictune::store
