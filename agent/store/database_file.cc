// SPDX-License-Identifier: Apache-2.0
#include "agent/store/database_file.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/log.h"

namespace nictune::store {
namespace {

// -journal: the change journal keeps a rollback journal, which must never meet another file.
constexpr const char* kCompanions[] = {"", "-wal", "-shm", "-journal"};

}  // namespace

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

absl::Status QuickCheck(Connection& connection) {
  absl::StatusOr<Statement> check = connection.Prepare("PRAGMA quick_check(1)", "quick_check");
  if (!check.ok()) return check.status();
  absl::StatusOr<bool> row = check->Step();
  if (!row.ok()) return row.status();
  const std::string verdict = *row ? check->ColumnText(0) : "no answer";
  if (verdict != "ok") {
    return absl::DataLossError(
        absl::StrFormat("SQLite %s: quick_check: %s", connection.path(), verdict));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> MoveDatabaseAside(const std::string& path, absl::Time now) {
  const std::string stem = absl::StrCat(path, ".corrupt-", absl::ToUnixSeconds(now));
  std::string target = stem;
  // A second failure within the same second must not overwrite the first file kept for study.
  for (int n = 1;
       FileExists(target) || FileExists(target + "-wal") || FileExists(target + "-journal"); ++n) {
    target = absl::StrCat(stem, ".", n);
  }
  for (const char* suffix : kCompanions) {
    const std::string from = path + suffix;
    const std::string to = target + suffix;
    if (std::rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
      const int error = errno;
      return absl::InternalError(
          absl::StrFormat("rename %s to %s: %s (errno %d)", from, to, std::strerror(error), error));
    }
  }
  return target;
}

absl::StatusOr<Connection> OpenCheckedDatabase(const std::string& path, int busy_timeout_ms,
                                               absl::Time now) {
  absl::Status damage;
  absl::StatusOr<std::string> moved;
  {
    absl::StatusOr<Connection> connection =
        Connection::Open(path, kOpenOrCreateFlags, busy_timeout_ms);
    if (!connection.ok()) return connection.status();
    damage = QuickCheck(*connection);
    if (damage.ok()) return connection;
    // Busy, I/O or permission errors are not the file's fault: moving it aside would lose data.
    if (!absl::IsDataLoss(damage)) return damage;
    // Renamed while still open: closing a connection deletes a -wal and -shm it finds by name,
    // and would checkpoint into the main file. Neither may happen to the copy kept for study.
    connection->KeepFilesOnClose();
    moved = MoveDatabaseAside(path, now);
  }
  if (!moved.ok()) {
    return absl::DataLossError(
        absl::StrCat(damage.message(), "; and moving it aside failed: ", moved.status().message()));
  }
  agent::LogError(absl::StrFormat(
      "store: %s is damaged (%s); moved it to %s and started an empty database: the history "
      "before now is in the moved file",
      path, damage.message(), *moved));
  absl::StatusOr<Connection> fresh = Connection::Open(path, kOpenOrCreateFlags, busy_timeout_ms);
  if (!fresh.ok()) return fresh.status();
  absl::Status fresh_check = QuickCheck(*fresh);
  if (!fresh_check.ok()) return fresh_check;
  return fresh;
}

}  // namespace nictune::store
