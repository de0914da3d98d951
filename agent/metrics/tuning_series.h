// SPDX-License-Identifier: Apache-2.0
// The tuner's and the actuator's series on /metrics, under the names the dashboards and rules use
// (dashboards/metrics.txt): what the tuner recommends, what the knob holds, what the
// actuator did, and the controller's mode of each knob it has seen.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "agent/metrics/knob_value_unit.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "tuner/controller.h"
#include "tuner/knob.h"
#include "tuner/recommendation.h"

namespace nictune::metrics {

// nictune_changes_total{result}: the dashboards' four results.
enum class ChangeResult { kApplied, kKept, kRolledBack, kFailed };

absl::string_view ChangeResultName(ChangeResult result);

class TuningSeries {
 public:
  // The families are registered on `registry`, which must outlive this.
  explicit TuningSeries(prometheus::Registry& registry);

  // nictune_knob_recommended_<unit>{knob,target} of the latest window (knob_value_unit.h); knobs
  // no longer recommended lose their series (a stale recommendation would read as a deviation).
  // Socket-scoped advice is left out: its target is a socket, not a knob the agent reads.
  void SetRecommendations(const std::vector<tuner::Recommendation>& recommendations);

  // nictune_knob_current_<unit>{knob,target}: the value as last read.
  void SetCurrent(tuner::Knob knob, const std::string& target, int64_t value);

  void CountChange(tuner::Knob knob, ChangeResult result);

  // nictune_knob_mode{knob,target,mode}: one series per knob and target, 1 under the mode it is
  // in now; the series of its former mode goes (a series per mode would be four per target, the
  // largest term of a small host's series budget).
  void SetMode(tuner::Knob knob, const std::string& target, tuner::KnobMode mode);

 private:
  std::mutex mutex_;
  // By KnobValueUnit.
  std::map<KnobValueUnit, prometheus::Family<prometheus::Gauge>*> recommended_;
  std::map<KnobValueUnit, prometheus::Family<prometheus::Gauge>*> current_;
  prometheus::Family<prometheus::Counter>& changes_;
  prometheus::Family<prometheus::Gauge>& mode_;
  std::map<std::string, std::pair<prometheus::Family<prometheus::Gauge>*, prometheus::Gauge*>>
      recommended_by_key_;
  std::map<std::string, std::pair<tuner::KnobMode, prometheus::Gauge*>> mode_by_key_;
};

absl::string_view KnobModeName(tuner::KnobMode mode);

}  // namespace nictune::metrics
