// SPDX-License-Identifier: Apache-2.0
// The change journal's statements, on the journal's own connection (journal.h, which says why
// a row is on disk when JournalOriginal returns its id).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/records.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

absl::StatusOr<int64_t> JournalOriginal(Connection& connection, const OriginalValue& original);

// NotFound for an unknown id; FailedPrecondition for a transition change_state.h forbids.
absl::Status MarkChange(Connection& connection, const ChangeUpdate& update);

// Changes of this boot that still owe the kernel its original value, oldest first.
absl::StatusOr<std::vector<ChangeRecord>> PendingChanges(Connection& connection,
                                                         const std::string& boot_id);

// Every change journaled at or after `since`, oldest first.
absl::StatusOr<std::vector<ChangeRecord>> ChangesSince(Connection& connection, absl::Time since);

}  // namespace nictune::store
