// SPDX-License-Identifier: Apache-2.0
// Moving change-journal rows between databases: reading what a possibly damaged file still
// holds, and writing rows into the journal with their ids kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/store/records.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

struct SalvagedChanges {
  std::vector<ChangeRecord> rows;  // oldest first
  int64_t unreadable = 0;          // rows skipped: a bad state name, or ids behind a bad page
  absl::Status problem;            // the first error met, OK when every row was read
};

// Every row of `changes` that can be read, skipping past damage: a read that fails resumes after
// the last id read (or one id further when it made no progress), a bounded number of times.
SalvagedChanges ReadChangesSalvaging(Connection& connection);

// INSERT OR IGNORE of each row with its id, inside the caller's transaction: an id the journal
// has already is kept as the journal has it.
absl::Status InsertChanges(Connection& journal, const std::vector<ChangeRecord>& rows,
                           absl::string_view operation);

// True when the database has a table of that name (a file that cannot be read says so).
absl::StatusOr<bool> HasTable(Connection& connection, absl::string_view table);

}  // namespace nictune::store
