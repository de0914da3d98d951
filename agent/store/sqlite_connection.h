// SPDX-License-Identifier: Apache-2.0
// A thin owner of one sqlite3 connection and its prepared statements. Every failure becomes a
// Status through SqliteError, so it names the file and the operation. Not thread-safe: the Store
// serialises use of each connection with its own mutex.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/store/statement_cache.h"

namespace nictune::store {

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as in SQLite.
  void BindInt64(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindText(int index, absl::string_view value);
  void BindNull(int index);

  // True when a row is ready to read, false when the statement finished.
  absl::StatusOr<bool> Step();
  // Steps to the end, for statements that return no rows.
  absl::Status Run();
  // Makes the statement runnable again with new bindings.
  void Reset();

  int64_t ColumnInt64(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  bool ColumnIsNull(int column) const;

 private:
  friend class Connection;
  Statement(sqlite3_stmt* statement, std::string path, std::string operation,
            std::weak_ptr<StatementCache> cache)
      : statement_(statement),
        path_(std::move(path)),
        operation_(std::move(operation)),
        cache_(std::move(cache)) {}

  sqlite3_stmt* statement_ = nullptr;
  std::string path_;
  std::string operation_;
  // Where the statement goes back to for reuse; finalized instead once its connection closed.
  std::weak_ptr<StatementCache> cache_;
};

class Connection {
 public:
  // `flags` are sqlite3_open_v2 flags; `busy_timeout_ms` bounds waits on other processes' locks.
  static absl::StatusOr<Connection> Open(const std::string& path, int flags, int busy_timeout_ms);

  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  absl::Status Exec(absl::string_view sql, absl::string_view operation);
  // A statement prepared once is kept for reuse when it is destroyed (StatementCache), so that
  // preparing the same SQL again costs a lookup.
  absl::StatusOr<Statement> Prepare(absl::string_view sql, absl::string_view operation);
  // For a statement that yields one integer (PRAGMA page_count, SELECT count(*) ...); nullopt
  // when it yields no row or NULL.
  absl::StatusOr<std::optional<int64_t>> QueryInt64(absl::string_view sql,
                                                    absl::string_view operation);
  absl::StatusOr<std::string> QueryText(absl::string_view sql, absl::string_view operation);

  // No checkpoint when this connection closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE), so the files
  // are left as they are.
  void KeepFilesOnClose();

  // Copies every WAL frame into the database and empties the WAL (a TRUNCATE checkpoint), waiting
  // for nobody: false when a reader's snapshot (or a writer) kept it from finishing, after it
  // copied what it could. The busy timeout is off for the call and set back after it.
  absl::StatusOr<bool> TryEmptyWal();

  // True outside an explicit transaction (SQLite may end one by itself after an I/O error).
  bool InAutocommit() const;
  int64_t RowsChanged() const;

  const std::string& path() const { return path_; }

 private:
  Connection(sqlite3* db, std::string path, int busy_timeout_ms)
      : db_(db),
        path_(std::move(path)),
        busy_timeout_ms_(busy_timeout_ms),
        statements_(std::make_shared<StatementCache>()) {}
  void Close();

  sqlite3* db_ = nullptr;
  std::string path_;
  int busy_timeout_ms_ = 0;
  std::shared_ptr<StatementCache> statements_;
};

// BEGIN IMMEDIATE on construction succeeds or fails through Begin(); the destructor rolls back
// whatever was not committed, so an early return never leaves a transaction open.
class Transaction {
 public:
  static absl::StatusOr<Transaction> Begin(Connection& connection, absl::string_view operation);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  absl::Status Commit();

 private:
  Transaction(Connection* connection, std::string operation)
      : connection_(connection), operation_(std::move(operation)) {}
  Connection* connection_ = nullptr;
  std::string operation_;
};

}  // namespace nictune::store
