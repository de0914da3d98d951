// SPDX-License-Identifier: Apache-2.0
#include "agent/store/journal.h"

#include <cstdio>

#include "absl/strings/str_format.h"
#include "agent/log.h"
#include "agent/store/change_journal.h"
#include "agent/store/database_file.h"
#include "agent/store/journal_rows.h"
#include "agent/store/schema.h"
#include "agent/store/state_dir.h"
#include "agent/store/store.h"

namespace nictune::store {
namespace {

constexpr int kOpenExistingFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;

absl::Status Configure(Connection& journal) {
  absl::StatusOr<std::string> mode =
      journal.QueryText("PRAGMA journal_mode = PERSIST", "set the journal's rollback mode");
  if (!mode.ok()) return mode.status();
  if (*mode != "persist") {
    return absl::FailedPreconditionError(absl::StrFormat(
        "SQLite %s: set the journal's rollback mode: mode is still %s", journal.path(), *mode));
  }
  return journal.Exec("PRAGMA synchronous = FULL; PRAGMA journal_size_limit = 1048576;",
                      "configure the journal");
}

// A new journal at `path` holding `rows`, written in the default rollback mode so that no
// rollback file is left under the name it is about to give up.
absl::Status WriteFreshJournal(const std::string& path, const std::vector<ChangeRecord>& rows,
                               int busy_ms) {
  std::remove(path.c_str());
  std::remove((path + "-journal").c_str());
  absl::StatusOr<Connection> fresh = Connection::Open(path, kOpenOrCreateFlags, busy_ms);
  if (!fresh.ok()) return fresh.status();
  if (absl::Status s = fresh->Exec("PRAGMA synchronous = FULL", "configure"); !s.ok()) return s;
  if (absl::Status s = ApplyMigrations(*fresh, JournalMigrations()); !s.ok()) return s;
  absl::StatusOr<Transaction> transaction = Transaction::Begin(*fresh, "copy recovered changes");
  if (!transaction.ok()) return transaction.status();
  if (absl::Status s = InsertChanges(*fresh, rows, "copy recovered changes"); !s.ok()) return s;
  return transaction->Commit();
}

// Replaces a damaged journal by one holding every row that could still be read.
absl::Status Recover(const std::string& path, const std::string& state_dir,
                     const absl::Status& damage, int busy_ms, absl::Time now) {
  SalvagedChanges salvaged;
  {
    absl::StatusOr<Connection> damaged = Connection::Open(path, kOpenExistingFlags, busy_ms);
    if (damaged.ok()) {
      salvaged = ReadChangesSalvaging(*damaged);
      damaged->KeepFilesOnClose();
    } else {
      salvaged.problem = damaged.status();
    }
  }
  const std::string fresh = path + ".new";
  if (absl::Status s = WriteFreshJournal(fresh, salvaged.rows, busy_ms); !s.ok()) return s;
  absl::StatusOr<std::string> moved = MoveDatabaseAside(path, now);
  if (!moved.ok()) return moved.status();
  if (std::rename(fresh.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrFormat("rename %s to %s: errno %d", fresh, path, errno));
  }
  if (absl::Status s = SyncDirectory(state_dir); !s.ok()) return s;
  agent::LogError(absl::StrFormat(
      "change journal: %s is damaged (%s); copied the %d change(s) that could be read into a "
      "fresh journal (%d unreadable%s) and moved the damaged file to %s",
      path, damage.message(), salvaged.rows.size(), salvaged.unreadable,
      salvaged.problem.ok() ? "" : absl::StrCat(": ", salvaged.problem.message()), *moved));
  return absl::OkStatus();
}

absl::StatusOr<Connection> OpenChecked(const std::string& path, const std::string& state_dir,
                                       int busy_ms, absl::Time now) {
  if (FileExists(path)) {
    absl::Status damage;
    {
      absl::StatusOr<Connection> existing = Connection::Open(path, kOpenExistingFlags, busy_ms);
      if (!existing.ok()) return existing.status();
      damage = QuickCheck(*existing);
      if (damage.ok()) return existing;
      // Busy, I/O or permission errors are not the file's fault.
      if (!absl::IsDataLoss(damage)) return damage;
      existing->KeepFilesOnClose();
    }
    if (absl::Status s = Recover(path, state_dir, damage, busy_ms, now); !s.ok()) return s;
  }
  return Connection::Open(path, kOpenOrCreateFlags, busy_ms);
}

// Copies the journal an older nictuned kept in nictune.db, once. Damage there does not stop it:
// every row that can be read comes over, and a damaged file is the history store's to move aside.
// Only an error that is not the file's (busy, permissions, I/O) leaves the import for next time.
absl::Status ImportLegacyJournal(Connection& journal, const std::string& state_dir, int busy_ms,
                                 absl::Time now) {
  absl::StatusOr<std::optional<int64_t>> done =
      journal.QueryInt64("SELECT count(*) FROM legacy_import", "read the legacy import record");
  if (!done.ok()) return done.status();
  if (done->value_or(0) > 0) return absl::OkStatus();
  const std::string legacy_path = absl::StrCat(state_dir, "/", kDatabaseFileName);
  SalvagedChanges legacy;
  if (FileExists(legacy_path)) {
    absl::StatusOr<Connection> legacy_db =
        Connection::Open(legacy_path, kOpenExistingFlags, busy_ms);
    if (!legacy_db.ok()) return legacy_db.status();
    legacy_db->KeepFilesOnClose();
    absl::StatusOr<bool> has = HasTable(*legacy_db, "changes");
    if (has.ok() && !*has) {
      legacy.problem = absl::OkStatus();
    } else if (has.ok()) {
      legacy = ReadChangesSalvaging(*legacy_db);
    } else {
      legacy.problem = has.status();
    }
    if (!legacy.problem.ok() && !absl::IsDataLoss(legacy.problem)) return legacy.problem;
  }
  absl::StatusOr<Transaction> transaction = Transaction::Begin(journal, "import legacy journal");
  if (!transaction.ok()) return transaction.status();
  if (absl::Status s = InsertChanges(journal, legacy.rows, "import legacy journal"); !s.ok()) {
    return s;
  }
  absl::StatusOr<Statement> mark = journal.Prepare(
      "INSERT INTO legacy_import (done_ts, rows) VALUES (?1, ?2)", "record the legacy import");
  if (!mark.ok()) return mark.status();
  mark->BindInt64(1, absl::ToUnixMillis(now));
  mark->BindInt64(2, static_cast<int64_t>(legacy.rows.size()));
  if (absl::Status s = mark->Run(); !s.ok()) return s;
  if (absl::Status s = transaction->Commit(); !s.ok()) return s;
  if (!legacy.rows.empty() || !legacy.problem.ok()) {
    agent::LogInfo(absl::StrFormat("change journal: copied %d change(s) from %s into %s%s",
                                   legacy.rows.size(), legacy_path, journal.path(),
                                   legacy.problem.ok()
                                       ? ""
                                       : absl::StrFormat(" (%d unreadable: %s)", legacy.unreadable,
                                                         legacy.problem.message())));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Journal>> Journal::Open(const std::string& state_dir,
                                                       absl::Duration busy_timeout,
                                                       absl::Time now) {
  const std::string path = absl::StrCat(state_dir, "/", kJournalFileName);
  const auto busy_ms = static_cast<int>(absl::ToInt64Milliseconds(busy_timeout));
  const bool created = !FileExists(path);
  absl::StatusOr<Connection> connection = OpenChecked(path, state_dir, busy_ms, now);
  if (!connection.ok()) return connection.status();
  if (absl::Status s = Configure(*connection); !s.ok()) return s;
  if (absl::Status s = ApplyMigrations(*connection, JournalMigrations()); !s.ok()) return s;
  if (created) {
    if (absl::Status s = SyncDirectory(state_dir); !s.ok()) return s;
  }
  if (absl::Status s = ImportLegacyJournal(*connection, state_dir, busy_ms, now); !s.ok()) {
    return s;
  }
  return std::unique_ptr<Journal>(new Journal(path, *std::move(connection)));
}

absl::StatusOr<int64_t> Journal::JournalOriginal(const OriginalValue& original) {
  std::lock_guard<std::mutex> lock(mutex_);
  return store::JournalOriginal(connection_, original);
}

absl::Status Journal::MarkChange(const ChangeUpdate& update) {
  std::lock_guard<std::mutex> lock(mutex_);
  return store::MarkChange(connection_, update);
}

absl::StatusOr<std::vector<ChangeRecord>> Journal::PendingChanges(const std::string& boot_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  return store::PendingChanges(connection_, boot_id);
}

absl::StatusOr<std::vector<ChangeRecord>> Journal::ChangesSince(absl::Time since) {
  std::lock_guard<std::mutex> lock(mutex_);
  return store::ChangesSince(connection_, since);
}

}  // namespace nictune::store
