// SPDX-License-Identifier: Apache-2.0
#include "agent/service/recommendation_json.h"

#include <string>

#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::service {

nlohmann::json RecommendationJson(const tuner::Recommendation& recommendation) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const tuner::Input& input : recommendation.inputs) {
    inputs.push_back({{"name", input.name}, {"value", input.value}, {"unit", input.unit}});
  }
  return {
      {"knob", std::string(tuner::KnobName(recommendation.knob))},
      {"scope", std::string(tuner::ScopeName(recommendation.scope))},
      {"target", recommendation.target},
      {"current", recommendation.current},
      {"recommended", recommendation.recommended},
      {"unit", std::string(tuner::KnobUnit(recommendation.knob))},
      {"inputs", std::move(inputs)},
      {"formula", recommendation.formula},
      {"expected_effect", recommendation.expected_effect},
      {"expected_gain", recommendation.expected_gain},
      {"confidence",
       {{"value", recommendation.confidence.value}, {"reason", recommendation.confidence.reason}}},
  };
}

std::vector<store::RecommendationRecord> RecommendationRecords(
    absl::Time ts, const std::vector<tuner::Recommendation>& recommendations) {
  std::vector<store::RecommendationRecord> records;
  records.reserve(recommendations.size());
  for (const tuner::Recommendation& r : recommendations) {
    records.push_back({.ts = ts,
                       .knob = std::string(tuner::KnobName(r.knob)),
                       .scope = std::string(tuner::ScopeName(r.scope)),
                       .target = r.target,
                       .current = r.current,
                       .recommended = r.recommended,
                       .json = model::JsonText(RecommendationJson(r))});
  }
  return records;
}

}  // namespace nictune::service
