// SPDX-License-Identifier: Apache-2.0
#include "agent/service/knob_change_watch.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace nictune::service {
namespace {

std::string Key(tuner::Knob knob, const std::string& target) {
  return absl::StrCat(static_cast<int>(knob), "\n", target);
}

}  // namespace

void KnobChangeWatch::NoteOwnWrite(tuner::Knob knob, const std::string& target, int64_t value) {
  absl::MutexLock lock(&mutex_);
  own_[Key(knob, target)].push_back(value);
}

void KnobChangeWatch::Observe(const std::vector<tuner::Recommendation>& readings, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  for (const tuner::Recommendation& r : readings) {
    if (r.scope == tuner::Scope::kSocket || r.knob == tuner::Knob::kSoRcvbuf) continue;
    const std::string key = Key(r.knob, r.target);
    const auto last = last_.find(key);
    if (last != last_.end() && last->second != r.current) {
      const std::vector<int64_t>& own = own_[key];
      if (std::find(own.begin(), own.end(), r.current) == own.end()) {
        changes_.push_back({.knob = r.knob,
                            .target = r.target,
                            .from = last->second,
                            .to = r.current,
                            .seen = now});
        ++total_;
        if (changes_.size() > kKeptChanges) changes_.pop_front();
      }
    }
    last_[key] = r.current;
  }
  own_.clear();
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
