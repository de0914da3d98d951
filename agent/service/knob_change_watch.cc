// SPDX-License-Identifier: Apache-2.0
#include "agent/service/knob_change_watch.h"

#include <algorithm>

#include "agent/actuate/knob_key.h"

namespace nictune::service {
void KnobChangeWatch::Wrote(const driver::knobs::KnobAddress& address, int64_t holds) {
  absl::MutexLock lock(&mutex_);
  own_[actuate::KnobKey(address)].push_back(holds);
}

void KnobChangeWatch::Observe(const std::vector<tuner::Recommendation>& readings, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  for (const tuner::Recommendation& r : readings) {
    if (r.scope == tuner::Scope::kSocket) continue;  // advice: there is nothing to read
    const std::string key = actuate::KnobKey({r.knob, r.target});
    const auto own = own_.find(key);
    const bool ours = own != own_.end() && std::find(own->second.begin(), own->second.end(),
                                                     r.current) != own->second.end();
    const auto last = last_.find(key);
    const bool moved = last != last_.end() && last->second != r.current;
    if (moved && !ours) {
      changes_.push_back(
          {.knob = r.knob, .target = r.target, .from = last->second, .to = r.current, .seen = now});
      ++total_;
      if (changes_.size() > kKeptChanges) changes_.pop_front();
    }
    // A write is the agent's until a reading shows it or the value moves on: a write that lands
    // after this window's readings were taken is still owed to the next window's.
    if (own != own_.end() && (ours || moved)) own_.erase(own);
    last_[key] = r.current;
  }
}

std::vector<KnobChange> KnobChangeWatch::Changes() const {
  absl::MutexLock lock(&mutex_);
  return {changes_.begin(), changes_.end()};
}

uint64_t KnobChangeWatch::total() const {
  absl::MutexLock lock(&mutex_);
  return total_;
}

}  // namespace nictune::service
