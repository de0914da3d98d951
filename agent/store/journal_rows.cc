// SPDX-License-Identifier: Apache-2.0
#include "agent/store/journal_rows.h"

#include <limits>

#include "absl/strings/str_format.h"
#include "agent/store/change_state.h"

namespace nictune::store {
namespace {

// Attempts to read past damage; each costs one failed step at most.
constexpr int kMaxReadAttempts = 4096;

enum class Read { kToTheEnd, kStoppedAtDamage, kCannotRead };

// Reads rows after `after` into `out` until the end or an error (in out.problem). kCannotRead:
// the statement does not even prepare (not a database, no table), so skipping ids cannot help.
Read ReadFrom(Connection& connection, int64_t& after, SalvagedChanges& out) {
  absl::StatusOr<Statement> select = connection.Prepare(
      "SELECT id, boot_id, ts, updated_ts, knob, target, original, new_value, state, reason "
      "FROM changes WHERE id > ?1 ORDER BY id",
      "salvage the change journal");
  if (!select.ok()) {
    if (out.problem.ok()) out.problem = select.status();
    return Read::kCannotRead;
  }
  select->BindInt64(1, after);
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) {
      if (out.problem.ok()) out.problem = row.status();
      return Read::kStoppedAtDamage;
    }
    if (!*row) return Read::kToTheEnd;
    after = select->ColumnInt64(0);
    std::optional<ChangeState> state = ParseChangeState(select->ColumnText(8));
    if (!state) {
      ++out.unreadable;
      continue;
    }
    ChangeRecord change{.id = after,
                        .boot_id = select->ColumnText(1),
                        .ts = absl::FromUnixMillis(select->ColumnInt64(2)),
                        .updated_ts = absl::FromUnixMillis(select->ColumnInt64(3)),
                        .knob = select->ColumnText(4),
                        .target = select->ColumnText(5),
                        .original = select->ColumnInt64(6),
                        .new_value = std::nullopt,
                        .state = *state,
                        .reason = select->ColumnText(9)};
    if (!select->ColumnIsNull(7)) change.new_value = select->ColumnInt64(7);
    out.rows.push_back(std::move(change));
  }
}

}  // namespace

SalvagedChanges ReadChangesSalvaging(Connection& connection) {
  SalvagedChanges out;
  int64_t after = std::numeric_limits<int64_t>::min();
  for (int attempt = 0; attempt < kMaxReadAttempts; ++attempt) {
    const int64_t before = after;
    const Read read = ReadFrom(connection, after, out);
    if (read != Read::kStoppedAtDamage) return out;
    if (after == before) {
      // No row came back: skip one id and try the next (ids are dense: AUTOINCREMENT).
      if (after == std::numeric_limits<int64_t>::max()) break;
      after = after == std::numeric_limits<int64_t>::min() ? 0 : after + 1;
      ++out.unreadable;
    }
  }
  return out;
}

absl::Status InsertChanges(Connection& journal, const std::vector<ChangeRecord>& rows,
                           absl::string_view operation) {
  absl::StatusOr<Statement> insert = journal.Prepare(
      "INSERT OR IGNORE INTO changes (id, boot_id, ts, updated_ts, knob, target, original, "
      "new_value, state, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
      operation);
  if (!insert.ok()) return insert.status();
  for (const ChangeRecord& row : rows) {
    insert->Reset();
    insert->BindInt64(1, row.id);
    insert->BindText(2, row.boot_id);
    insert->BindInt64(3, absl::ToUnixMillis(row.ts));
    insert->BindInt64(4, absl::ToUnixMillis(row.updated_ts));
    insert->BindText(5, row.knob);
    insert->BindText(6, row.target);
    insert->BindInt64(7, row.original);
    if (row.new_value) {
      insert->BindInt64(8, *row.new_value);
    } else {
      insert->BindNull(8);
    }
    insert->BindText(9, ChangeStateName(row.state));
    insert->BindText(10, row.reason);
    if (absl::Status inserted = insert->Run(); !inserted.ok()) return inserted;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> HasTable(Connection& connection, absl::string_view table) {
  absl::StatusOr<Statement> select = connection.Prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", "look up a table");
  if (!select.ok()) return select.status();
  select->BindText(1, table);
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  return *row;
}

}  // namespace nictune::store
