// SPDX-License-Identifier: Apache-2.0
// GET /healthz through the router: 200 while samples come on time or the agent is starting, 503
// with the reason once the sampling loop is stuck.
#include "absl/time/time.h"
#include "agent/http/health_route.h"
#include "agent/service/service_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;

const absl::Time kStarted = absl::FromUnixSeconds(1'700'000'000);

class HealthRouteTest : public ::testing::Test {
 protected:
  HealthRouteTest()
      : state_({.version = "0.1.0", .interval = absl::Seconds(1), .started = kStarted}) {
    EXPECT_TRUE(AddHealthRoute(router_, state_, [this] { return now_; }).ok());
  }

  void SampledAt(absl::Time at) {
    state_.UpdateSampling({.samples = 1, .last_sample = at});
  }

  std::pair<int, nlohmann::json> Get() {
    const Response response = router_.Dispatch({.method = "GET", .path = "/healthz"});
    EXPECT_EQ(response.content_type, "application/json");
    return {response.status, nlohmann::json::parse(response.body)};
  }

  absl::Time now_ = kStarted + absl::Seconds(5);
  service::ServiceState state_;
  Router router_;
};

TEST_F(HealthRouteTest, StartingIsHealthyUntilTheGraceEnds) {
  auto [status, body] = Get();
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body["status"], "starting");
  now_ = kStarted + absl::Seconds(1) + kStartupGrace + absl::Seconds(1);  // interval 1s
  std::tie(status, body) = Get();
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body["status"], "stale");
  EXPECT_THAT(body["detail"].get<std::string>(), HasSubstr("no sample in the 1m2s since start"));
}

TEST_F(HealthRouteTest, ASampleOnTimeIsHealthyAndOneFiveIntervalsLateIsNot) {
  now_ = kStarted + absl::Seconds(100);
  SampledAt(now_ - kStaleAfterIntervals * absl::Seconds(1));
  auto [status, body] = Get();
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body["status"], "ok");
  EXPECT_EQ(body["detail"], "the latest sample is 5s old");
  SampledAt(now_ - kStaleAfterIntervals * absl::Seconds(1) - absl::Milliseconds(1));
  std::tie(status, body) = Get();
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body["status"], "stale");
  EXPECT_EQ(body["detail"], "the latest sample is 5.001s old, more than 5s");
}

TEST(HealthOfTest, ALongIntervalGetsItsFirstSampleAndAShortOneIsNotJudgedByMilliseconds) {
  service::ServiceStatus slow{.config = {.interval = absl::Minutes(5), .started = kStarted}};
  EXPECT_TRUE(HealthOf(slow, kStarted + absl::Minutes(5) + absl::Seconds(30)).ok);
  EXPECT_FALSE(HealthOf(slow, kStarted + absl::Minutes(5) + kStartupGrace + absl::Seconds(1)).ok);
  service::ServiceStatus fast{.config = {.interval = absl::Milliseconds(10), .started = kStarted}};
  fast.sampling.last_sample = kStarted + absl::Seconds(100);
  EXPECT_TRUE(HealthOf(fast, kStarted + absl::Seconds(100) + absl::Seconds(4)).ok);
  EXPECT_FALSE(HealthOf(fast, kStarted + absl::Seconds(100) + absl::Seconds(6)).ok);
}

}  // namespace
}  // namespace nictune::http
