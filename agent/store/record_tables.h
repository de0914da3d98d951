// SPDX-License-Identifier: Apache-2.0
// Recommendations and events: append-only records kept for record_retention.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/records.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

// All in one transaction.
absl::Status WriteRecommendations(Connection& connection,
                                  const std::vector<RecommendationRecord>& recommendations);
absl::StatusOr<std::vector<RecommendationRecord>> ReadRecommendations(Connection& connection,
                                                                      absl::Time since);

absl::Status WriteEvent(Connection& connection, const EventRecord& event);
absl::StatusOr<std::vector<EventRecord>> ReadEvents(Connection& connection, absl::Time since);

}  // namespace nictune::store
