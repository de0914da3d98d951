// SPDX-License-Identifier: Apache-2.0
#include "agent/store/series_catalog.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nictune::store {

absl::Status SeriesCatalog::PrepareStatements() {
  if (select_.has_value()) return absl::OkStatus();
  absl::StatusOr<Statement> select = connection_->Prepare(
      "SELECT id FROM series WHERE name = ?1 AND labels = ?2", "look up series");
  if (!select.ok()) return select.status();
  absl::StatusOr<Statement> insert =
      connection_->Prepare("INSERT INTO series (name, labels) VALUES (?1, ?2)", "add series");
  if (!insert.ok()) return insert.status();
  select_.emplace(std::move(*select));
  insert_.emplace(std::move(*insert));
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SeriesCatalog::Intern(const std::string& name,
                                              const std::string& labels_text, bool& created) {
  created = false;
  const std::string key = absl::StrCat(name, "\n", labels_text);
  if (auto it = committed_.find(key); it != committed_.end()) return it->second;
  if (auto it = provisional_.find(key); it != provisional_.end()) return it->second;
  absl::Status prepared = PrepareStatements();
  if (!prepared.ok()) return prepared;

  select_->Reset();
  select_->BindText(1, name);
  select_->BindText(2, labels_text);
  absl::StatusOr<bool> found = select_->Step();
  if (!found.ok()) return found.status();
  if (*found) {
    const int64_t id = select_->ColumnInt64(0);
    select_->Reset();
    // Found in the table, so it outlives this transaction whatever happens to it.
    committed_.emplace(key, id);
    return id;
  }
  select_->Reset();

  insert_->Reset();
  insert_->BindText(1, name);
  insert_->BindText(2, labels_text);
  absl::Status inserted = insert_->Run();
  insert_->Reset();
  if (!inserted.ok()) return inserted;
  absl::StatusOr<std::optional<int64_t>> id =
      connection_->QueryInt64("SELECT last_insert_rowid()", "add series");
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    return absl::InternalError(absl::StrFormat("SQLite %s: add series %s%s: no row id",
                                               connection_->path(), name, labels_text));
  }
  created = true;
  provisional_.emplace(key, **id);
  return **id;
}

void SeriesCatalog::Commit() {
  committed_.insert(provisional_.begin(), provisional_.end());
  provisional_.clear();
}

void SeriesCatalog::Discard() { provisional_.clear(); }

}  // namespace nictune::store
