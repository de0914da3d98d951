// SPDX-License-Identifier: Apache-2.0
#include "agent/store/sample_stamps.h"

#include <limits>

namespace nictune::store {
namespace {

constexpr const char* kNextStamp =
    "SELECT min(ts) FROM samples WHERE step_ms = ?1 AND ts >= ?2 AND ts < ?3";

}  // namespace

absl::StatusOr<std::vector<int64_t>> DistinctStamps(Connection& connection, int64_t step_ms,
                                                    int64_t from_ms, int64_t until_ms, size_t limit,
                                                    bool& truncated) {
  truncated = false;
  std::vector<int64_t> stamps;
  absl::StatusOr<Statement> next = connection.Prepare(kNextStamp, "scan sample timestamps");
  if (!next.ok()) return next.status();
  int64_t from = from_ms;
  while (from < until_ms) {
    next->Reset();
    next->BindInt64(1, step_ms);
    next->BindInt64(2, from);
    next->BindInt64(3, until_ms);
    absl::StatusOr<bool> row = next->Step();
    if (!row.ok()) return row.status();
    if (!*row || next->ColumnIsNull(0)) break;
    if (stamps.size() == limit) {
      truncated = true;
      break;
    }
    const int64_t stamp = next->ColumnInt64(0);
    stamps.push_back(stamp);
    from = stamp + 1;
  }
  return stamps;
}

absl::StatusOr<std::optional<int64_t>> FirstStampFrom(Connection& connection, int64_t step_ms,
                                                      int64_t from_ms) {
  absl::StatusOr<Statement> next = connection.Prepare(kNextStamp, "find oldest sample");
  if (!next.ok()) return next.status();
  next->BindInt64(1, step_ms);
  next->BindInt64(2, from_ms);
  next->BindInt64(3, std::numeric_limits<int64_t>::max());
  absl::StatusOr<bool> row = next->Step();
  if (!row.ok()) return row.status();
  if (!*row || next->ColumnIsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(next->ColumnInt64(0));
}

}  // namespace nictune::store
