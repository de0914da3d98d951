// SPDX-License-Identifier: Apache-2.0
// The agent's change journal read straight from its SQLite file, as a test sees it after killing
// the agent: no store code runs (Store::Open would move a damaged file aside and hide the damage),
// only SQLite's own WAL recovery, PRAGMA integrity_check and a SELECT of the changes table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::testing_support {

// One row of the changes table (agent/store/schema.cc), as stored.
struct JournalRow {
  int64_t id = 0;
  std::string boot_id;
  std::string knob;
  std::string target;
  int64_t original = 0;
  std::optional<int64_t> new_value;
  std::string state;  // journaled, applied, verified, rolled_back, restored, released
  std::string reason;
};

struct JournalFile {
  std::string integrity;  // PRAGMA integrity_check's rows joined by newlines: "ok" when sound
  std::vector<JournalRow> rows;  // oldest first
};

// Opens `database_path` (read-write so that a WAL left by a killed writer is recovered), checks
// its integrity and reads every change. The error names the file, the step and SQLite's message;
// NotFound: the file is sound but the store never got to create its tables.
absl::StatusOr<JournalFile> ReadJournalFile(const std::string& database_path);

}  // namespace nictune::testing_support
