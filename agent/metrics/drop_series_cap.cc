// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/drop_series_cap.h"

#include "agent/metrics/label_values.h"

namespace nictune::metrics {

void DropSeriesCap::Apply(model::Window& window) {
  ReleaseQuiet();
  for (model::DropWindow& drop : window.drops) {
    drop.beyond_series_cap = false;
    prometheus::Labels labels = DropLabels(drop);
    if (auto it = last_seen_.find(labels); it != last_seen_.end()) {
      it->second = intervals_;
      continue;
    }
    if (last_seen_.size() < max_series_) {
      last_seen_.emplace(std::move(labels), intervals_);
      continue;
    }
    drop.beyond_series_cap = true;
    overflow_drops_ += drop.count;
  }
  ++intervals_;
}

void DropSeriesCap::ReleaseQuiet() {
  std::erase_if(last_seen_,
                [this](const auto& entry) { return intervals_ - entry.second > release_after_; });
}

}  // namespace nictune::metrics
