// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the query-string parsers: no input may crash them, and every accepted
// history query must satisfy the limits the parser promises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "agent/http/query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  (void)nictune::http::ParseQueryString(input);
  const absl::Time now = absl::FromUnixSeconds(1'735'787'045);
  const auto query = nictune::http::ParseHistoryQuery(input, now);
  if (query.ok()) {
    absl::Duration remainder;
    const bool within_limits =
        !query->series.empty() && query->series.size() <= nictune::http::kMaxHistorySeries &&
        query->since < query->until && query->step >= absl::Milliseconds(1) &&
        query->step <= absl::Hours(24) &&
        absl::IDivDuration(query->until - query->since, query->step, &remainder) <=
            nictune::http::kMaxHistoryPoints;
    if (!within_limits) std::abort();
  }
  return 0;
}
