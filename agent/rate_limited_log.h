// SPDX-License-Identifier: Apache-2.0
// Logging of problems that recur: a device that went away or a knob that cannot be read is seen
// again every window, and one line per window would bury everything else in the journal. Each
// problem (a key naming what failed) is logged at most once per period; the repeats in between
// are counted and the next line says how many there were.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/log.h"

namespace nictune::agent {

class RateLimitedLog {
 public:
  explicit RateLimitedLog(absl::Duration every = absl::Minutes(1)) : every_(every) {}

  RateLimitedLog(const RateLimitedLog&) = delete;
  RateLimitedLog& operator=(const RateLimitedLog&) = delete;

  // Logs `message` at `level` unless `problem` was logged less than the period before `now`;
  // then only counts it. Returns whether the line was written.
  bool Log(LogLevel level, absl::string_view problem, absl::string_view message, absl::Time now);

  // The problem is over: its next occurrence is logged at once. Returns how many repeats of it
  // went unlogged since its last line; nullopt for a problem not being tracked.
  std::optional<uint64_t> Clear(absl::string_view problem);

  // Problems tracked now: bounded, since those quiet for a period are forgotten.
  size_t tracked() const;

 private:
  struct Problem {
    absl::Time logged;     // its last line
    absl::Time last_seen;  // its last occurrence, logged or counted
    uint64_t unlogged = 0;
  };

  const absl::Duration every_;
  mutable std::mutex mutex_;
  absl::flat_hash_map<std::string, Problem> problems_;
};

}  // namespace nictune::agent
