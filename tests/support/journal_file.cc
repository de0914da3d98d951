// SPDX-License-Identifier: Apache-2.0
#include "tests/support/journal_file.h"

#include <sqlite3.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace nictune::testing_support {
namespace {

struct CloseDatabase {
  void operator()(sqlite3* database) const { sqlite3_close(database); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Database = std::unique_ptr<sqlite3, CloseDatabase>;
using Statement = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

absl::Status SqliteError(const std::string& path, const std::string& step, sqlite3* database) {
  return absl::InternalError(absl::StrCat(path, ": ", step, ": ", sqlite3_errmsg(database),
                                          " (SQLite ", sqlite3_extended_errcode(database), ")"));
}

std::string Text(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text));
}

}  // namespace

absl::StatusOr<JournalFile> ReadJournalFile(const std::string& database_path) {
  sqlite3* raw = nullptr;
  const int opened = sqlite3_open_v2(database_path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  Database database(raw);
  if (opened != SQLITE_OK) return SqliteError(database_path, "open", database.get());
  sqlite3_busy_timeout(database.get(), 5000);

  JournalFile file;
  auto prepare = [&](const char* sql, Statement& statement) -> absl::Status {
    sqlite3_stmt* prepared = nullptr;
    if (sqlite3_prepare_v2(database.get(), sql, -1, &prepared, nullptr) != SQLITE_OK) {
      return SqliteError(database_path, absl::StrCat("prepare \"", sql, "\""), database.get());
    }
    statement.reset(prepared);
    return absl::OkStatus();
  };

  Statement integrity;
  if (absl::Status status = prepare("PRAGMA integrity_check", integrity); !status.ok()) {
    return status;
  }
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(integrity.get())) == SQLITE_ROW) {
    absl::StrAppend(&file.integrity, file.integrity.empty() ? "" : "\n", Text(integrity.get(), 0));
  }
  if (step != SQLITE_DONE) {
    return SqliteError(database_path, "PRAGMA integrity_check", database.get());
  }

  // A writer killed inside its first Open can leave a sound file without the schema yet.
  Statement table;
  if (absl::Status status =
          prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'changes'", table);
      !status.ok()) {
    return status;
  }
  if (sqlite3_step(table.get()) != SQLITE_ROW && file.integrity == "ok") {
    return absl::NotFoundError(
        absl::StrCat(database_path,
                     ": sound (integrity_check ok) but has no changes table: the "
                     "store had not created its schema"));
  }

  Statement changes;
  if (absl::Status status = prepare(
          "SELECT id, boot_id, knob, target, original, new_value, state, reason FROM changes "
          "ORDER BY id",
          changes);
      !status.ok()) {
    return status;
  }
  while ((step = sqlite3_step(changes.get())) == SQLITE_ROW) {
    JournalRow row;
    row.id = sqlite3_column_int64(changes.get(), 0);
    row.boot_id = Text(changes.get(), 1);
    row.knob = Text(changes.get(), 2);
    row.target = Text(changes.get(), 3);
    row.original = sqlite3_column_int64(changes.get(), 4);
    if (sqlite3_column_type(changes.get(), 5) != SQLITE_NULL) {
      row.new_value = sqlite3_column_int64(changes.get(), 5);
    }
    row.state = Text(changes.get(), 6);
    row.reason = Text(changes.get(), 7);
    file.rows.push_back(std::move(row));
  }
  if (step != SQLITE_DONE) return SqliteError(database_path, "SELECT changes", database.get());
  return file;
}

}  // namespace nictune::testing_support
