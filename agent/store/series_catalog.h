// SPDX-License-Identifier: Apache-2.0
// Interns (name, labels) into the series table and remembers the ids, so an append of thousands
// of samples looks each series up in memory. Ids created inside a transaction stay provisional
// until it commits: a rolled-back insert must not leave a cached id that points nowhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "agent/store/sqlite_connection.h"

namespace nictune::store {

class SeriesCatalog {
 public:
  explicit SeriesCatalog(Connection* connection) : connection_(connection) {}

  // Inside an open transaction on the connection. `created` tells whether the row is new.
  absl::StatusOr<int64_t> Intern(const std::string& name, const std::string& labels_text,
                                 bool& created);
  // After the transaction committed or rolled back.
  void Commit();
  void Discard();

 private:
  absl::Status PrepareStatements();

  Connection* connection_;
  absl::flat_hash_map<std::string, int64_t> committed_;
  absl::flat_hash_map<std::string, int64_t> provisional_;
  std::optional<Statement> select_;
  std::optional<Statement> insert_;
};

}  // namespace nictune::store
