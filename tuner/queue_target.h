// SPDX-License-Identifier: Apache-2.0
// How a queue is named as the target of a recommendation ("eth0", "eth0 rx 3").
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "tuner/knob.h"
#include "tuner/observation.h"

namespace nictune::tuner {

inline std::string QueueTarget(const QueueObservation& queue) {
  return queue.queue < 0 ? queue.device : absl::StrCat(queue.device, " rx ", queue.queue);
}

inline Scope QueueScope(const QueueObservation& queue) {
  return queue.queue < 0 ? Scope::kDevice : Scope::kQueue;
}

}  // namespace nictune::tuner
