// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/recommendations through the router: an empty list with the reason before the first
// tuner window and in observe mode, then the tuner's own recommendations on seed 001's numbers
// with inputs, formula, expected effect and confidence; the emulated NICs with their control
// sockets.
#include <memory>

#include "agent/http/recommendations_route.h"
#include "agent/service/service_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/seed001_observation.h"
#include "tuner/recommend.h"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;

nlohmann::json Get(const Router& router) {
  const Response response = router.Dispatch({.method = "GET", .path = "/api/v1/recommendations"});
  EXPECT_EQ(response.status, 200) << response.body;
  return nlohmann::json::parse(response.body);
}

TEST(RecommendationsRouteTest, BeforeTheFirstWindowIsAnEmptyListWithAReason) {
  service::ServiceState state(service::ServiceConfig{.mode = service::Mode::kRecommend});
  Router router;
  ASSERT_TRUE(AddRecommendationsRoute(router, state).ok());
  const nlohmann::json body = Get(router);
  EXPECT_TRUE(body["recommendations"].is_array());
  EXPECT_TRUE(body["recommendations"].empty());
  EXPECT_THAT(body["reason"].get<std::string>(), HasSubstr("no tuner window"));
  EXPECT_TRUE(body["window"]["end"].is_null());
}

TEST(RecommendationsRouteTest, ObserveModeSaysTheTunerDoesNotRun) {
  service::ServiceState state(service::ServiceConfig{.mode = service::Mode::kObserve});
  Router router;
  ASSERT_TRUE(AddRecommendationsRoute(router, state).ok());
  const nlohmann::json body = Get(router);
  EXPECT_TRUE(body["recommendations"].empty());
  EXPECT_THAT(body["reason"].get<std::string>(), HasSubstr("observe mode"));
}

TEST(RecommendationsRouteTest, ListsTheEmulatedNicsWithTheirControlSockets) {
  service::ServiceState none(service::ServiceConfig{});
  Router plain;
  ASSERT_TRUE(AddRecommendationsRoute(plain, none).ok());
  EXPECT_EQ(Get(plain)["emulated_nics"], nlohmann::json::array());

  service::ServiceState state(service::ServiceConfig{
      .emulated_nics = {{.device = "emu0", .socket_path = "/run/nictune-demo/emu0.sock"}}});
  Router router;
  ASSERT_TRUE(AddRecommendationsRoute(router, state).ok());
  EXPECT_EQ(Get(router)["emulated_nics"],
            nlohmann::json::parse(
                R"([{"device": "emu0", "control_socket": "/run/nictune-demo/emu0.sock"}])"));
}

TEST(RecommendationsRouteTest, CarriesTheTunersArithmetic) {
  service::ServiceState state(service::ServiceConfig{});
  Router router;
  ASSERT_TRUE(AddRecommendationsRoute(router, state).ok());
  tuner::PolicyConfig config;
  config.margin = 0;
  auto recommended = tuner::Recommend(testing_support::Seed001Observation(), config);
  ASSERT_TRUE(recommended.ok()) << recommended.status();
  const absl::Time end = absl::FromUnixSeconds(1'700'000'010);
  state.PublishRecommendations(std::make_shared<const service::RecommendationSet>(
      service::RecommendationSet{.window_start = end - absl::Seconds(10),
                                 .window_end = end,
                                 .samples = 10,
                                 .recommendations = *recommended}));

  const nlohmann::json body = Get(router);
  EXPECT_EQ(body["reason"], "");
  EXPECT_EQ(body["window"]["samples"], 10);
  EXPECT_EQ(body["window"]["end"], "2023-11-14T22:13:30+00:00");
  ASSERT_EQ(body["recommendations"].size(), recommended->size());
  const nlohmann::json* usecs = nullptr;
  for (const auto& r : body["recommendations"]) {
    if (r["knob"] == "rx_usecs") usecs = &r;
  }
  ASSERT_NE(usecs, nullptr) << body.dump(2);
  EXPECT_EQ((*usecs)["target"], "eth0");
  EXPECT_EQ((*usecs)["scope"], "device");
  EXPECT_EQ((*usecs)["current"], 1);
  EXPECT_EQ((*usecs)["recommended"], 87);  // floor of seed 001's 87.5 us fill time
  EXPECT_THAT((*usecs)["formula"].get<std::string>(), HasSubstr("71.14"));
  EXPECT_FALSE((*usecs)["inputs"].empty());
  EXPECT_TRUE((*usecs)["inputs"][0].contains("unit"));
  EXPECT_FALSE((*usecs)["expected_effect"].get<std::string>().empty());
  EXPECT_GT((*usecs)["confidence"]["value"].get<double>(), 0.0);
  EXPECT_FALSE((*usecs)["confidence"]["reason"].get<std::string>().empty());
}

TEST(RecommendationsRouteTest, OnlyGet) {
  service::ServiceState state(service::ServiceConfig{});
  Router router;
  ASSERT_TRUE(AddRecommendationsRoute(router, state).ok());
  EXPECT_EQ(router.Dispatch({.method = "POST", .path = "/api/v1/recommendations"}).status, 405);
}

}  // namespace
}  // namespace nictune::http
