// SPDX-License-Identifier: Apache-2.0
#include "agent/http/recommendations_route.h"

#include "agent/model/json_text.h"
#include "agent/service/recommendation_json.h"
#include "agent/service/time_json.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
nlohmann::json RecommendationsJson(const service::RecommendationSet& set,
                                   const std::vector<service::EmulatedNicSpec>& emulated_nics) {
  nlohmann::json recommendations = nlohmann::json::array();
  for (const tuner::Recommendation& r : set.recommendations) {
    recommendations.push_back(service::RecommendationJson(r));
  }
  nlohmann::json emulated = nlohmann::json::array();
  for (const service::EmulatedNicSpec& nic : emulated_nics) {
    emulated.push_back({{"device", nic.device}, {"control_socket", nic.socket_path}});
  }
  return {{"window",
           {{"start", service::TimeJson(set.window_start)},
            {"end", service::TimeJson(set.window_end)},
            {"samples", set.samples}}},
          {"reason", set.reason},
          {"recommendations", std::move(recommendations)},
          {"emulated_nics", std::move(emulated)}};
}

absl::Status AddRecommendationsRoute(Router& router, const service::ServiceState& state) {
  return router.Add("GET", "/api/v1/recommendations", Effect::kReadsOnly, [&state](const Request&) {
    return Response{.body = model::JsonText(RecommendationsJson(
                        *state.Recommendations(), state.Config().emulated_nics))};
  });
}

}  // namespace nictune::http
