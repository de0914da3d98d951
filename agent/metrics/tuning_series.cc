// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/tuning_series.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::metrics {
namespace {

std::string KnobLabel(tuner::Knob knob) { return std::string(tuner::KnobName(knob)); }

prometheus::Labels ValueLabels(tuner::Knob knob, const std::string& target) {
  return {{"knob", KnobLabel(knob)}, {"target", target}};
}

double InFamilyUnit(tuner::Knob knob, int64_t value) {
  return static_cast<double>(value) * ValueScaleOf(knob);
}

}  // namespace

absl::string_view ChangeResultName(ChangeResult result) {
  switch (result) {
    case ChangeResult::kApplied:
      return "applied";
    case ChangeResult::kKept:
      return "kept";
    case ChangeResult::kRolledBack:
      return "rolled_back";
    case ChangeResult::kFailed:
      return "failed";
  }
  return "unknown";
}

absl::string_view KnobModeName(tuner::KnobMode mode) {
  switch (mode) {
    case tuner::KnobMode::kIdle:
      return "idle";
    case tuner::KnobMode::kGuarding:
      return "guarding";
    case tuner::KnobMode::kParked:
      return "parked";
    case tuner::KnobMode::kReleased:
      return "released";
  }
  return "unknown";
}

TuningSeries::TuningSeries(prometheus::Registry& registry)
    : changes_(CounterFamily(registry, metrics::family::kChangesTotal)),
      mode_(GaugeFamily(registry, metrics::family::kKnobMode)) {
  for (const KnobValueUnit unit : kKnobValueUnits) {
    recommended_[unit] = &GaugeFamily(registry, std::string(RecommendedFamilyOf(unit)));
    current_[unit] = &GaugeFamily(registry, std::string(CurrentFamilyOf(unit)));
  }
}

void TuningSeries::SetRecommendations(const std::vector<tuner::Recommendation>& recommendations) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, std::pair<prometheus::Family<prometheus::Gauge>*, prometheus::Gauge*>> next;
  for (const tuner::Recommendation& rec : recommendations) {
    if (rec.scope == tuner::Scope::kSocket) continue;
    const std::string key = absl::StrCat(KnobLabel(rec.knob), "@", rec.target);
    prometheus::Family<prometheus::Gauge>* family = recommended_.at(ValueUnitOf(rec.knob));
    prometheus::Gauge& gauge = family->Add(ValueLabels(rec.knob, rec.target));
    gauge.Set(InFamilyUnit(rec.knob, rec.recommended));
    next[key] = {family, &gauge};
    current_.at(ValueUnitOf(rec.knob))
        ->Add(ValueLabels(rec.knob, rec.target))
        .Set(InFamilyUnit(rec.knob, rec.current));
  }
  for (const auto& [key, series] : recommended_by_key_) {
    if (next.count(key) == 0) series.first->Remove(series.second);
  }
  recommended_by_key_ = std::move(next);
}

void TuningSeries::SetCurrent(tuner::Knob knob, const std::string& target, int64_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  current_.at(ValueUnitOf(knob))->Add(ValueLabels(knob, target)).Set(InFamilyUnit(knob, value));
}

void TuningSeries::CountChange(tuner::Knob knob, ChangeResult result) {
  std::lock_guard<std::mutex> lock(mutex_);
  changes_.Add({{"knob", KnobLabel(knob)}, {"result", std::string(ChangeResultName(result))}})
      .Increment();
}

void TuningSeries::SetMode(tuner::Knob knob, const std::string& target, tuner::KnobMode now) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = absl::StrCat(KnobLabel(knob), "@", target);
  const auto it = mode_by_key_.find(key);
  if (it != mode_by_key_.end()) {
    if (it->second.first == now) return;
    mode_.Remove(it->second.second);
  }
  prometheus::Gauge& gauge = mode_.Add(
      {{"knob", KnobLabel(knob)}, {"target", target}, {"mode", std::string(KnobModeName(now))}});
  gauge.Set(1);
  mode_by_key_[key] = {now, &gauge};
}

}  // namespace nictune::metrics
