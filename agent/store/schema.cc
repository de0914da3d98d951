// SPDX-License-Identifier: Apache-2.0
#include "agent/store/schema.h"

#include "absl/strings/str_format.h"

namespace nictune::store {

const std::vector<Migration>& SchemaMigrations() {
  static const std::vector<Migration>* const kMigrations = new std::vector<Migration>{
      {1, "series, samples at every resolution, recommendations, change journal, events", R"sql(
CREATE TABLE series (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  labels TEXT NOT NULL,  -- canonical JSON object, keys sorted
  UNIQUE (name, labels)
);
-- Keyed by time first: a window's rows land together at the end of the tree (a few pages per
-- append however many series), and retention deletes whole pages from the front.
CREATE TABLE samples (
  step_ms INTEGER NOT NULL,  -- the resolution: the raw step or a downsampled one
  ts INTEGER NOT NULL,       -- unix ms; bucket start for downsampled rows
  series_id INTEGER NOT NULL,
  value REAL NOT NULL,       -- mean of `count` raw samples
  count INTEGER NOT NULL,
  PRIMARY KEY (step_ms, ts, series_id)
) WITHOUT ROWID;
-- How far downsampling into a resolution has got: buckets before bucket_ts are done, and within
-- bucket_ts the series below next_series_id.
CREATE TABLE downsample_progress (
  step_ms INTEGER PRIMARY KEY,
  bucket_ts INTEGER NOT NULL,
  next_series_id INTEGER NOT NULL
);
CREATE TABLE recommendations (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  knob TEXT NOT NULL,
  scope TEXT NOT NULL,
  target TEXT NOT NULL,
  current INTEGER NOT NULL,
  recommended INTEGER NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX recommendations_by_ts ON recommendations (ts);
CREATE TABLE changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the id is the change's name in logs
  boot_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  updated_ts INTEGER NOT NULL,
  knob TEXT NOT NULL,
  target TEXT NOT NULL,
  original INTEGER NOT NULL,
  new_value INTEGER,
  state TEXT NOT NULL CHECK (state IN
    ('journaled', 'applied', 'verified', 'rolled_back', 'restored', 'released')),
  reason TEXT NOT NULL
);
CREATE INDEX changes_by_boot_state ON changes (boot_id, state);
CREATE INDEX changes_by_ts ON changes (ts);
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  level TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX events_by_ts ON events (ts);
)sql"},
  };
  return *kMigrations;
}

const std::vector<Migration>& JournalMigrations() {
  static const std::vector<Migration>* const kMigrations = new std::vector<Migration>{
      {1, "the change journal, and a record of the import of an older release's journal", R"sql(
CREATE TABLE changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: the id is the change's name in logs
  boot_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  updated_ts INTEGER NOT NULL,
  knob TEXT NOT NULL,
  target TEXT NOT NULL,
  original INTEGER NOT NULL,
  new_value INTEGER,
  state TEXT NOT NULL CHECK (state IN
    ('journaled', 'applied', 'verified', 'rolled_back', 'restored', 'released')),
  reason TEXT NOT NULL
);
CREATE INDEX changes_by_boot_state ON changes (boot_id, state);
CREATE INDEX changes_by_ts ON changes (ts);
-- One row once the changes an older nictuned kept inside nictune.db have been copied here.
CREATE TABLE legacy_import (
  done_ts INTEGER NOT NULL,
  rows INTEGER NOT NULL
);
)sql"},
  };
  return *kMigrations;
}

absl::Status ApplyMigrations(Connection& connection, const std::vector<Migration>& migrations) {
  for (size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1) {
      return absl::FailedPreconditionError(
          absl::StrFormat("schema of %s: migration %d has version %d, expected %d",
                          connection.path(), i, migrations[i].version, i + 1));
    }
  }
  absl::StatusOr<std::optional<int64_t>> current =
      connection.QueryInt64("PRAGMA user_version", "read schema version");
  if (!current.ok()) return current.status();
  const int64_t have = current->value_or(0);
  const auto latest = static_cast<int64_t>(migrations.size());
  if (have > latest) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "schema of %s is version %d, newer than the %d this nictuned knows: refusing to use it",
        connection.path(), have, latest));
  }
  for (int64_t version = have + 1; version <= latest; ++version) {
    const Migration& migration = migrations[static_cast<size_t>(version - 1)];
    const std::string operation =
        absl::StrFormat("migrate schema to version %d (%s)", version, migration.description);
    absl::StatusOr<Transaction> transaction = Transaction::Begin(connection, operation);
    if (!transaction.ok()) return transaction.status();
    absl::Status applied = connection.Exec(migration.sql, operation);
    if (!applied.ok()) return applied;
    // user_version is in the database header, written by this same transaction.
    applied = connection.Exec(absl::StrFormat("PRAGMA user_version = %d", version), operation);
    if (!applied.ok()) return applied;
    applied = transaction->Commit();
    if (!applied.ok()) return applied;
  }
  return absl::OkStatus();
}

}  // namespace nictune::store
