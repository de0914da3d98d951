// SPDX-License-Identifier: Apache-2.0
// Appends one sampling window's values as raw rows, in a single transaction.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/records.h"
#include "agent/store/series_catalog.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

// Every sample gets timestamp `ts` at the raw resolution `raw_step_ms`. A series given twice keeps
// its last value. Non-finite values are skipped and counted. All or nothing: on failure no row
// of the window is stored.
absl::StatusOr<AppendResult> WriteSamples(Connection& connection, SeriesCatalog& catalog,
                                          int64_t raw_step_ms, absl::Time ts,
                                          const std::vector<SeriesSample>& samples);

}  // namespace nictune::store
