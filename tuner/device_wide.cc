// SPDX-License-Identifier: Apache-2.0
#include "tuner/device_wide.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace nictune::tuner {
namespace {

std::optional<int64_t> Recommended(const QueueRecommendations& queue, Knob knob) {
  for (const Recommendation& r : queue.recommendations) {
    if (r.knob == knob) return r.recommended;
  }
  return std::nullopt;
}

// Lower is stricter: the shorter interval. A queue without the knob never wins on it.
int64_t IntervalOf(const QueueRecommendations& queue, Knob knob) {
  return Recommended(queue, knob).value_or(std::numeric_limits<int64_t>::max());
}

}  // namespace

std::vector<Recommendation> StrictestQueuePerDevice(std::vector<QueueRecommendations> queues) {
  std::vector<Recommendation> out;
  std::vector<bool> taken(queues.size(), false);
  for (size_t first = 0; first < queues.size(); ++first) {
    if (taken[first]) continue;
    size_t strictest = first;
    size_t count = 0;
    for (size_t i = first; i < queues.size(); ++i) {
      if (queues[i].device != queues[first].device) continue;
      taken[i] = true;
      ++count;
      const auto key = [&](size_t q) {
        return std::pair(IntervalOf(queues[q], Knob::kRxUsecs),
                         IntervalOf(queues[q], Knob::kGroFlushTimeout));
      };
      if (key(i) < key(strictest)) strictest = i;
    }
    for (Recommendation& r : queues[strictest].recommendations) {
      r.target = queues[strictest].device;
      r.scope = Scope::kDevice;
      if (count > 1) {
        absl::StrAppend(&r.formula, "; set per device: ", queues[strictest].queue,
                        " needs the shortest interval of its ", count, " queues");
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace nictune::tuner
