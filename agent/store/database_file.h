// SPDX-License-Identifier: Apache-2.0
// Opening state_dir/nictune.db so that a damaged file can never stop the agent: the file is
// checked with PRAGMA quick_check, and a database that is not one, or fails the check, is moved
// aside (with its -wal and -shm) to nictune.db.corrupt-<unix time> and a fresh one started.
#pragma once

#include <sqlite3.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

// How the store's files are opened: read-write, created when missing, the connection used by one
// thread at a time.
inline constexpr int kOpenOrCreateFlags =
    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

// Whether anything exists at `path`.
bool FileExists(const std::string& path);

// A connection that passed quick_check. `now` names the moved-aside file.
absl::StatusOr<Connection> OpenCheckedDatabase(const std::string& path, int busy_timeout_ms,
                                               absl::Time now);

// OK when quick_check says "ok"; DataLoss naming the file and the first problem otherwise (also
// for SQLITE_NOTADB and SQLITE_CORRUPT); other errors as they come.
absl::Status QuickCheck(Connection& connection);

// Renames `path` and its -wal, -shm and -journal companions to `<path>.corrupt-<unix
// seconds>[.<n>]...`; returns the new name of the main file.
absl::StatusOr<std::string> MoveDatabaseAside(const std::string& path, absl::Time now);

}  // namespace nictune::store
