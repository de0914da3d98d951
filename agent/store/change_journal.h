// The change journal: the original value of every knob is on disk before the kernel is touched.
//
// Durability: these functions run on their own connection with PRAGMA synchronous=FULL. In WAL
// mode that makes COMMIT fsync the WAL file before it returns, so when JournalOriginal returns an
// id the row survives a crash or power loss (the directory entry of the WAL was synced when the
// store opened). The WAL is one file, so the fsync also covers any earlier sample rows written
// with synchronous=NORMAL. The actuator writes the kernel only after it has the id.
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
