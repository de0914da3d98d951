// SPDX-License-Identifier: Apache-2.0
// Turns a SQLite result code into an absl::Status that names the database file, the operation and
// SQLite's own words, and picks the status code callers act on: a full disk is ResourceExhausted
// (the agent keeps serving), a damaged file is DataLoss (Open moves it aside).
#pragma once

#include <sqlite3.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace nictune::store {

// `db` may be null (the handle could not be allocated); then only the result code is reported.
absl::Status SqliteError(absl::string_view path, absl::string_view operation, int result_code,
                         sqlite3* db);

// "SQLITE_FULL", "SQLITE_CORRUPT", ... for the primary code of `result_code`.
absl::string_view SqliteCodeName(int result_code);

}  // namespace nictune::store
