// SPDX-License-Identifier: Apache-2.0
#include "agent/store/change_journal.h"

#include "absl/strings/str_format.h"
#include "agent/store/change_state.h"

namespace nictune::store {
namespace {

constexpr const char* kSelectChanges =
    "SELECT id, boot_id, ts, updated_ts, knob, target, original, new_value, state, reason "
    "FROM changes ";

absl::StatusOr<std::vector<ChangeRecord>> ReadChanges(Statement& select) {
  std::vector<ChangeRecord> changes;
  for (;;) {
    absl::StatusOr<bool> row = select.Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    ChangeRecord change;
    change.id = select.ColumnInt64(0);
    change.boot_id = select.ColumnText(1);
    change.ts = absl::FromUnixMillis(select.ColumnInt64(2));
    change.updated_ts = absl::FromUnixMillis(select.ColumnInt64(3));
    change.knob = select.ColumnText(4);
    change.target = select.ColumnText(5);
    change.original = select.ColumnInt64(6);
    if (!select.ColumnIsNull(7)) change.new_value = select.ColumnInt64(7);
    const std::string state = select.ColumnText(8);
    std::optional<ChangeState> parsed = ParseChangeState(state);
    if (!parsed) {
      return absl::DataLossError(
          absl::StrFormat("change journal row %d: unknown state \"%s\"", change.id, state));
    }
    change.state = *parsed;
    change.reason = select.ColumnText(9);
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace

absl::StatusOr<int64_t> JournalOriginal(Connection& connection, const OriginalValue& original) {
  const std::string operation = absl::StrFormat("journal original %s of %s = %d", original.knob,
                                                original.target, original.original);
  absl::StatusOr<Transaction> transaction = Transaction::Begin(connection, operation);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<Statement> insert = connection.Prepare(
      "INSERT INTO changes (boot_id, ts, updated_ts, knob, target, original, state, reason) "
      "VALUES (?1, ?2, ?2, ?3, ?4, ?5, 'journaled', ?6)",
      operation);
  if (!insert.ok()) return insert.status();
  insert->BindText(1, original.boot_id);
  insert->BindInt64(2, absl::ToUnixMillis(original.ts));
  insert->BindText(3, original.knob);
  insert->BindText(4, original.target);
  insert->BindInt64(5, original.original);
  insert->BindText(6, original.reason);
  absl::Status inserted = insert->Run();
  if (!inserted.ok()) return inserted;
  absl::StatusOr<std::optional<int64_t>> id =
      connection.QueryInt64("SELECT last_insert_rowid()", operation);
  if (!id.ok()) return id.status();
  // The commit is the fsync (synchronous=FULL): only after it is the original safe to rely on.
  absl::Status committed = transaction->Commit();
  if (!committed.ok()) return committed;
  return id->value_or(0);
}

absl::Status MarkChange(Connection& connection, const ChangeUpdate& update) {
  const std::string operation =
      absl::StrFormat("mark change %d %s", update.id, ChangeStateName(update.state));
  absl::StatusOr<Transaction> transaction = Transaction::Begin(connection, operation);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<Statement> select =
      connection.Prepare("SELECT state FROM changes WHERE id = ?1", operation);
  if (!select.ok()) return select.status();
  select->BindInt64(1, update.id);
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!*row) {
    return absl::NotFoundError(absl::StrFormat("SQLite %s: %s: no change with id %d",
                                               connection.path(), operation, update.id));
  }
  const std::string from_name = select->ColumnText(0);
  select->Reset();
  std::optional<ChangeState> from = ParseChangeState(from_name);
  if (!from || !IsAllowedTransition(*from, update.state)) {
    return absl::FailedPreconditionError(
        absl::StrFormat("SQLite %s: %s: change %d is %s, which cannot become %s", connection.path(),
                        operation, update.id, from_name, ChangeStateName(update.state)));
  }
  absl::StatusOr<Statement> write = connection.Prepare(
      "UPDATE changes SET state = ?2, updated_ts = ?3, reason = ?4, "
      "new_value = coalesce(?5, new_value) WHERE id = ?1",
      operation);
  if (!write.ok()) return write.status();
  write->BindInt64(1, update.id);
  const absl::string_view state_name = ChangeStateName(update.state);
  write->BindText(2, state_name);
  write->BindInt64(3, absl::ToUnixMillis(update.ts));
  write->BindText(4, update.reason);
  if (update.value) write->BindInt64(5, *update.value);
  absl::Status written = write->Run();
  if (!written.ok()) return written;
  return transaction->Commit();
}

absl::StatusOr<std::vector<ChangeRecord>> PendingChanges(Connection& connection,
                                                         const std::string& boot_id) {
  absl::StatusOr<Statement> select = connection.Prepare(
      std::string(kSelectChanges) +
          "WHERE boot_id = ?1 AND state IN ('journaled', 'applied', 'verified') ORDER BY id",
      "read pending changes");
  if (!select.ok()) return select.status();
  select->BindText(1, boot_id);
  return ReadChanges(*select);
}

absl::StatusOr<std::vector<ChangeRecord>> ChangesSince(Connection& connection, absl::Time since) {
  absl::StatusOr<Statement> select = connection.Prepare(
      std::string(kSelectChanges) + "WHERE ts >= ?1 ORDER BY id", "read changes");
  if (!select.ok()) return select.status();
  select->BindInt64(1, absl::ToUnixMillis(since));
  return ReadChanges(*select);
}

}  // namespace nictune::store
