// SPDX-License-Identifier: Apache-2.0
#include "agent/rate_limited_log.h"

#include "absl/strings/str_cat.h"

namespace nictune::agent {
namespace {

// Forgetting quiet problems is a sweep over the map; done only once it holds this many.
constexpr size_t kSweepAbove = 64;

}  // namespace

bool RateLimitedLog::Log(LogLevel level, absl::string_view problem, absl::string_view message,
                         absl::Time now) {
  uint64_t unlogged = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (problems_.size() > kSweepAbove) {
      // A problem not seen for a whole period would be logged at once anyway: its entry is no
      // longer needed (devices come and go; the map must not grow with them). One that still
      // recurs keeps its count of unlogged repeats, however long ago its last line was.
      absl::erase_if(problems_, [&](const auto& entry) {
        return now - entry.second.last_seen >= every_ && entry.first != problem;
      });
    }
    auto [it, inserted] = problems_.try_emplace(std::string(problem));
    it->second.last_seen = now;
    if (!inserted && now - it->second.logged < every_) {
      ++it->second.unlogged;
      return false;
    }
    unlogged = inserted ? 0 : it->second.unlogged;
    it->second.logged = now;
    it->second.unlogged = 0;
  }
  if (unlogged == 0) {
    agent::Log(level, std::string(message));
  } else {
    agent::Log(level,
               absl::StrCat(message, " (", unlogged, " more time(s) since the last report; ",
                            "reported at most once every ", absl::FormatDuration(every_), ")"));
  }
  return true;
}

std::optional<uint64_t> RateLimitedLog::Clear(absl::string_view problem) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = problems_.find(problem);
  if (it == problems_.end()) return std::nullopt;
  const uint64_t unlogged = it->second.unlogged;
  problems_.erase(it);
  return unlogged;
}

size_t RateLimitedLog::tracked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return problems_.size();
}

}  // namespace nictune::agent
