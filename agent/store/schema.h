// SPDX-License-Identifier: Apache-2.0
// The database schema as an ordered list of migrations. PRAGMA user_version records the last one
// applied; Open applies the rest in order, each in its own transaction with its version bump, so
// a crash leaves the database at one version or the next, never between.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

struct Migration {
  int version = 0;  // 1, 2, ... without gaps
  std::string description;
  std::string sql;  // one or more statements
};

// The migrations of this release, oldest first: the history database (nictune.db).
const std::vector<Migration>& SchemaMigrations();

// The change journal's own database (journal.db, journal.h), oldest first. Its `changes` table
// has the columns nictune.db's had, so that rows copy over as they are.
const std::vector<Migration>& JournalMigrations();

// Brings the database to the last version of `migrations`. FailedPrecondition when the database
// is newer than this binary (a downgrade would misread it) or the list is not 1, 2, 3 ...
absl::Status ApplyMigrations(Connection& connection, const std::vector<Migration>& migrations);

}  // namespace nictune::store
