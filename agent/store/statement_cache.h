// SPDX-License-Identifier: Apache-2.0
// Prepared statements kept for reuse, by their SQL text. The sampling loop runs the same few
// dozen statements every interval, and preparing one (parsing and planning it) costs more than
// running it. Bounded: past kMaxKept statements, one that comes back is finalized. Used under the
// lock of the connection it belongs to.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace nictune::store {

class StatementCache {
 public:
  static constexpr size_t kMaxKept = 64;

  StatementCache() = default;
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;
  ~StatementCache() { Clear(); }

  // A kept statement prepared from exactly `sql`, ready to bind and step; nullptr when none is.
  sqlite3_stmt* Take(absl::string_view sql);
  // Resets `statement` and keeps it for the next Take of its SQL, or finalizes it when one is
  // kept already or the cache is full.
  void Give(sqlite3_stmt* statement);
  // Finalizes every kept statement (before the connection closes).
  void Clear();

 private:
  absl::flat_hash_map<std::string, sqlite3_stmt*> kept_;
};

}  // namespace nictune::store
