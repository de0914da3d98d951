// SPDX-License-Identifier: Apache-2.0
#include "agent/store/sqlite_connection.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/store/sqlite_error.h"

namespace nictune::store {

Statement::Statement(Statement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr)),
      path_(std::move(other.path_)),
      operation_(std::move(other.operation_)),
      cache_(std::move(other.cache_)) {}

Statement::~Statement() {
  if (statement_ == nullptr) return;
  if (std::shared_ptr<StatementCache> cache = cache_.lock()) {
    cache->Give(statement_);
  } else {
    sqlite3_finalize(statement_);
  }
}

void Statement::BindInt64(int index, int64_t value) {
  sqlite3_bind_int64(statement_, index, static_cast<sqlite3_int64>(value));
}

void Statement::BindDouble(int index, double value) {
  sqlite3_bind_double(statement_, index, value);
}

void Statement::BindText(int index, absl::string_view value) {
  sqlite3_bind_text64(statement_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void Statement::BindNull(int index) { sqlite3_bind_null(statement_, index); }

absl::StatusOr<bool> Statement::Step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(path_, operation_, rc, sqlite3_db_handle(statement_));
}

absl::Status Statement::Run() {
  for (;;) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

void Statement::Reset() {
  // The result of reset repeats the last step's error, which Step already reported.
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

int64_t Statement::ColumnInt64(int column) const {
  return static_cast<int64_t>(sqlite3_column_int64(statement_, column));
}

double Statement::ColumnDouble(int column) const {
  return sqlite3_column_double(statement_, column);
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return "";
  const int bytes = sqlite3_column_bytes(statement_, column);
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes));
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

absl::StatusOr<Connection> Connection::Open(const std::string& path, int flags,
                                            int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status error = SqliteError(path, "open", rc, db);
    sqlite3_close_v2(db);  // a handle is returned even on failure, except when out of memory
    return error;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return Connection(db, path, busy_timeout_ms);
}

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      busy_timeout_ms_(other.busy_timeout_ms_),
      statements_(std::move(other.statements_)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    Close();
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    busy_timeout_ms_ = other.busy_timeout_ms_;
    statements_ = std::move(other.statements_);
  }
  return *this;
}

Connection::~Connection() { Close(); }

void Connection::Close() {
  // close_v2 defers the close until every statement is finalized, so ordering never leaks a handle.
  // Statements still out are finalized when they are destroyed, the cache being gone.
  statements_.reset();
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
}

absl::Status Connection::Exec(absl::string_view sql, absl::string_view operation) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(path_, operation, rc, db_);
  return absl::OkStatus();
}

absl::StatusOr<Statement> Connection::Prepare(absl::string_view sql, absl::string_view operation) {
  if (statements_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(path_, ": ", operation, " (prepare): the connection is closed"));
  }
  if (sqlite3_stmt* kept = statements_->Take(sql)) {
    return Statement(kept, path_, std::string(operation), statements_);
  }
  sqlite3_stmt* statement = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(statement);
    return SqliteError(path_, absl::StrCat(operation, " (prepare)"), rc, db_);
  }
  return Statement(statement, path_, std::string(operation), statements_);
}

absl::StatusOr<std::optional<int64_t>> Connection::QueryInt64(absl::string_view sql,
                                                              absl::string_view operation) {
  absl::StatusOr<Statement> statement = Prepare(sql, operation);
  if (!statement.ok()) return statement.status();
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  if (!*row || statement->ColumnIsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(statement->ColumnInt64(0));
}

absl::StatusOr<std::string> Connection::QueryText(absl::string_view sql,
                                                  absl::string_view operation) {
  absl::StatusOr<Statement> statement = Prepare(sql, operation);
  if (!statement.ok()) return statement.status();
  absl::StatusOr<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::string();
  return statement->ColumnText(0);
}

absl::StatusOr<bool> Connection::TryEmptyWal() {
  sqlite3_busy_timeout(db_, 0);
  int wal_frames = 0;
  int copied_frames = 0;
  const int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, &wal_frames,
                                           &copied_frames);
  sqlite3_busy_timeout(db_, busy_timeout_ms_);
  if (rc == SQLITE_OK) return true;
  if ((rc & 0xff) == SQLITE_BUSY) return false;
  return SqliteError(path_, "checkpoint and empty the WAL", rc, db_);
}

void Connection::KeepFilesOnClose() {
  sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
}

bool Connection::InAutocommit() const { return sqlite3_get_autocommit(db_) != 0; }

int64_t Connection::RowsChanged() const { return static_cast<int64_t>(sqlite3_changes64(db_)); }

absl::StatusOr<Transaction> Transaction::Begin(Connection& connection,
                                               absl::string_view operation) {
  // IMMEDIATE takes the write lock now, so a busy database fails here rather than mid-way.
  absl::Status begun = connection.Exec("BEGIN IMMEDIATE", absl::StrCat(operation, " (begin)"));
  if (!begun.ok()) return begun;
  return Transaction(&connection, std::string(operation));
}

Transaction::Transaction(Transaction&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)),
      operation_(std::move(other.operation_)) {}

Transaction::~Transaction() {
  // After SQLITE_FULL or an I/O error SQLite may already have rolled back by itself.
  if (connection_ != nullptr && !connection_->InAutocommit()) {
    connection_->Exec("ROLLBACK", "rollback").IgnoreError();
  }
}

absl::Status Transaction::Commit() {
  absl::Status committed = connection_->Exec("COMMIT", absl::StrCat(operation_, " (commit)"));
  if (committed.ok()) connection_ = nullptr;
  return committed;
}

}  // namespace nictune::store
