// SPDX-License-Identifier: Apache-2.0
// The drop series cap: at most `max_series` (reason, proto, device) label sets of
// nictune_skb_drops_total at a time, on /metrics and in history alike, whatever reasons,
// protocols and devices the host's drops bring. A set keeps its place while it moves; a drop
// whose set finds every place taken is marked beyond the cap and counts in one overflow series
// (label_values.h DropLabels), so that the totals stay whole and the cap shows. A set quiet for
// longer than the exporter keeps a quiet counter (CounterSums) gives its place up, so that the
// host-side veths of containers that came and went do not hold the places for good. The same
// rule as OpenTelemetry's cardinality limit, with its overflow series.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "agent/metrics/swept_series.h"
#include "agent/model/window.h"
#include "prometheus/labels.h"

namespace nictune::metrics {

class DropSeriesCap {
 public:
  // A place is given up once its set was quiet for more intervals than the exporter keeps a
  // quiet counter's series, so that the old series has gone from /metrics before another takes
  // the place.
  static constexpr uint64_t kReleaseAfterIntervals = CounterSums::kForgetAfterPublishes + 1;

  explicit DropSeriesCap(size_t max_series, uint64_t release_after = kReleaseAfterIntervals)
      : max_series_(max_series), release_after_(release_after) {}

  // One interval's window: admits its drops, the largest first (the window keeps them so), and
  // marks those whose set found every place taken.
  void Apply(model::Window& window);

  size_t admitted() const { return last_seen_.size(); }
  // Drops counted in the overflow series since the agent started.
  uint64_t overflow_drops() const { return overflow_drops_; }

 private:
  void ReleaseQuiet();

  const size_t max_series_;
  const uint64_t release_after_;
  std::map<prometheus::Labels, uint64_t> last_seen_;  // the admitted sets: interval last seen
  uint64_t intervals_ = 0;
  uint64_t overflow_drops_ = 0;
};

}  // namespace nictune::metrics
