// SPDX-License-Identifier: Apache-2.0
#include "agent/store/record_tables.h"

namespace nictune::store {

absl::Status WriteRecommendations(Connection& connection,
                                  const std::vector<RecommendationRecord>& recommendations) {
  constexpr absl::string_view kOperation = "append recommendations";
  absl::StatusOr<Transaction> transaction = Transaction::Begin(connection, kOperation);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<Statement> insert = connection.Prepare(
      "INSERT INTO recommendations (ts, knob, scope, target, current, recommended, json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
      kOperation);
  if (!insert.ok()) return insert.status();
  for (const RecommendationRecord& r : recommendations) {
    insert->Reset();
    insert->BindInt64(1, absl::ToUnixMillis(r.ts));
    insert->BindText(2, r.knob);
    insert->BindText(3, r.scope);
    insert->BindText(4, r.target);
    insert->BindInt64(5, r.current);
    insert->BindInt64(6, r.recommended);
    insert->BindText(7, r.json);
    absl::Status inserted = insert->Run();
    if (!inserted.ok()) return inserted;
  }
  return transaction->Commit();
}

absl::StatusOr<std::vector<RecommendationRecord>> ReadRecommendations(Connection& connection,
                                                                      absl::Time since) {
  absl::StatusOr<Statement> select = connection.Prepare(
      "SELECT ts, knob, scope, target, current, recommended, json FROM recommendations "
      "WHERE ts >= ?1 ORDER BY ts, id",
      "read recommendations");
  if (!select.ok()) return select.status();
  select->BindInt64(1, absl::ToUnixMillis(since));
  std::vector<RecommendationRecord> out;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) return out;
    out.push_back({.ts = absl::FromUnixMillis(select->ColumnInt64(0)),
                   .knob = select->ColumnText(1),
                   .scope = select->ColumnText(2),
                   .target = select->ColumnText(3),
                   .current = select->ColumnInt64(4),
                   .recommended = select->ColumnInt64(5),
                   .json = select->ColumnText(6)});
  }
}

absl::Status WriteEvent(Connection& connection, const EventRecord& event) {
  absl::StatusOr<Statement> insert = connection.Prepare(
      "INSERT INTO events (ts, level, message) VALUES (?1, ?2, ?3)", "append event");
  if (!insert.ok()) return insert.status();
  insert->BindInt64(1, absl::ToUnixMillis(event.ts));
  insert->BindText(2, event.level);
  insert->BindText(3, event.message);
  return insert->Run();
}

absl::StatusOr<std::vector<EventRecord>> ReadEvents(Connection& connection, absl::Time since) {
  absl::StatusOr<Statement> select = connection.Prepare(
      "SELECT ts, level, message FROM events WHERE ts >= ?1 ORDER BY ts, id", "read events");
  if (!select.ok()) return select.status();
  select->BindInt64(1, absl::ToUnixMillis(since));
  std::vector<EventRecord> out;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) return out;
    out.push_back({.ts = absl::FromUnixMillis(select->ColumnInt64(0)),
                   .level = select->ColumnText(1),
                   .message = select->ColumnText(2)});
  }
}

}  // namespace nictune::store
