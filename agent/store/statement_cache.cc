// SPDX-License-Identifier: Apache-2.0
#include "agent/store/statement_cache.h"

namespace nictune::store {

sqlite3_stmt* StatementCache::Take(absl::string_view sql) {
  auto it = kept_.find(sql);
  if (it == kept_.end()) return nullptr;
  sqlite3_stmt* statement = it->second;
  kept_.erase(it);
  return statement;
}

void StatementCache::Give(sqlite3_stmt* statement) {
  // The result of reset repeats the last step's error, which Step already reported.
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  const char* sql = sqlite3_sql(statement);
  if (sql == nullptr || kept_.size() >= kMaxKept || !kept_.emplace(sql, statement).second) {
    sqlite3_finalize(statement);
  }
}

void StatementCache::Clear() {
  for (auto& [sql, statement] : kept_) sqlite3_finalize(statement);
  kept_.clear();
}

}  // namespace nictune::store
