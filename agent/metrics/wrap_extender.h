// SPDX-License-Identifier: Apache-2.0
// Extends u32 kernel counters that wrap (/proc/net/softnet_stat) to 64 bits, so the exported
// counter keeps rising where the kernel's wraps to zero. The first value seen is taken as is.
#pragma once

#include <cstdint>
#include <map>

#include "agent/model/counter_delta.h"

namespace nictune::metrics {

template <typename Key>
class WrapExtender {
 public:
  uint64_t Extend(const Key& key, uint32_t raw) {
    auto [it, inserted] = state_.try_emplace(key, State{.last = raw, .total = raw});
    State& s = it->second;
    if (!inserted) {
      s.total += model::WrappingDelta32(s.last, raw);
      s.last = raw;
    }
    s.seen = true;
    return s.total;
  }

  // Forgets the keys not extended since the previous sweep (a CPU went offline).
  void Sweep() {
    for (auto it = state_.begin(); it != state_.end();) {
      if (!it->second.seen) {
        it = state_.erase(it);
      } else {
        it->second.seen = false;
        ++it;
      }
    }
  }

 private:
  struct State {
    uint32_t last = 0;
    uint64_t total = 0;
    bool seen = true;
  };
  std::map<Key, State> state_;
};

}  // namespace nictune::metrics
