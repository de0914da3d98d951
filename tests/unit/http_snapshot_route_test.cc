// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/snapshot through the router: 503 before the first interval, then the latest window
// report of the interval the sampling loop published.
#include <memory>

#include "agent/http/snapshot_route.h"
#include "agent/service/service_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;

class SnapshotRouteTest : public ::testing::Test {
 protected:
  SnapshotRouteTest() : state_(service::ServiceConfig{}) {
    EXPECT_TRUE(AddSnapshotRoute(router_, state_).ok());
  }
  Response Get() { return router_.Dispatch({.method = "GET", .path = "/api/v1/snapshot"}); }

  service::ServiceState state_;
  Router router_;
};

TEST_F(SnapshotRouteTest, BeforeTheFirstIntervalIsUnavailableWithAReason) {
  const Response response = Get();
  EXPECT_EQ(response.status, 503);
  const auto body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["error"], "no_snapshot");
  EXPECT_THAT(body["detail"].get<std::string>(), HasSubstr("--interval"));
}

TEST_F(SnapshotRouteTest, ServesTheLatestReportAndFollowsNewerOnes) {
  state_.PublishInterval(std::make_shared<const service::IntervalReading>(service::IntervalReading{
                             .window = {.seconds = 0.2, .cpus = {{.cpu = 0}}}}),
                         {.samples = 1});
  const Response first = Get();
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(first.content_type, "application/json");
  EXPECT_EQ(nlohmann::json::parse(first.body)["seconds"], 0.2);
  EXPECT_EQ(nlohmann::json::parse(first.body)["cpus"][0]["cpu"], 0);

  // A reader holding the old report keeps it valid while the loop publishes the next one.
  const auto held = state_.LatestReport();
  state_.PublishInterval(std::make_shared<const service::IntervalReading>(
                             service::IntervalReading{.window = {.seconds = 0.3}}),
                         {.samples = 2});
  EXPECT_EQ((*held)["seconds"], 0.2);
  EXPECT_EQ(nlohmann::json::parse(Get().body)["seconds"], 0.3);
}

TEST_F(SnapshotRouteTest, OnlyGet) {
  EXPECT_EQ(router_.Dispatch({.method = "DELETE", .path = "/api/v1/snapshot"}).status, 405);
}

}  // namespace
}  // namespace nictune::http
