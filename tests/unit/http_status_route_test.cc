// SPDX-License-Identifier: Apache-2.0
// GET /api/v1/status through the router, over a ServiceState filled as the sampling loop fills it.
#include "absl/status/status.h"
#include "agent/http/status_route.h"
#include "agent/service/service_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;

const absl::Time kStarted = absl::FromUnixSeconds(1'700'000'000);

service::ServiceConfig Config(service::Mode mode) {
  return {.version = "0.1.0",
          .mode = mode,
          .on_exit = service::OnExit::kKeep,
          .interval = absl::Milliseconds(200),
          .window = absl::Seconds(1),
          .started = kStarted,
          .listen = "127.0.0.1:9877",
          .socket_path = "/run/nictune/nictune.sock"};
}

class StatusRouteTest : public ::testing::Test {
 protected:
  explicit StatusRouteTest(service::Mode mode = service::Mode::kRecommend) : state_(Config(mode)) {
    EXPECT_TRUE(AddStatusRoute(router_, state_, [] { return kStarted + absl::Seconds(90); }).ok());
  }

  nlohmann::json Get() {
    const Response response = router_.Dispatch({.method = "GET", .path = "/api/v1/status"});
    EXPECT_EQ(response.status, 200) << response.body;
    EXPECT_EQ(response.content_type, "application/json");
    return nlohmann::json::parse(response.body);
  }

  service::ServiceState state_;
  Router router_;
};

TEST_F(StatusRouteTest, BeforeTheFirstSampleSaysSoAndNamesTheConfiguration) {
  const nlohmann::json status = Get();
  EXPECT_EQ(status["version"], "0.1.0");
  EXPECT_EQ(status["mode"], "recommend");
  EXPECT_EQ(status["mode_note"], "");
  EXPECT_EQ(status["on_exit"], "keep");
  EXPECT_DOUBLE_EQ(status["uptime_s"].get<double>(), 90.0);
  EXPECT_DOUBLE_EQ(status["interval_s"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(status["window_s"].get<double>(), 1.0);
  EXPECT_EQ(status["started"], "2023-11-14T22:13:20+00:00");
  EXPECT_EQ(status["listen"], "127.0.0.1:9877");
  EXPECT_EQ(status["socket"], "/run/nictune/nictune.sock");
  EXPECT_EQ(status["sampling"]["samples"], 0);
  EXPECT_TRUE(status["sampling"]["last_sample"].is_null());
  EXPECT_FALSE(status["store"]["configured"].get<bool>());
  EXPECT_FALSE(status["store"]["healthy"].get<bool>());
  EXPECT_TRUE(status["sources"].empty());
}

TEST_F(StatusRouteTest, ReportsSourcesProbesSamplingAndStoreErrors) {
  state_.SetBpf({.in_use = true,
                 .programs = {{.name = "napi_poll", .attach_type = "tp_btf", .attached = true},
                              {.name = "sk_data_ready",
                               .attached = false,
                               .reason = "tracepoint sock:sk_data_ready not found"}}});
  state_.SetStorePath("/var/lib/nictune/nictune.db");
  state_.PublishInterval(
      nullptr, {.samples = 42,
                .missed_intervals = 1,
                .windows = 8,
                .last_sample = kStarted + absl::Seconds(89),
                .sources = {{.name = "bpf", .source = model::Source::kBpf, .in_use = true},
                            {.name = "/proc/net/snmp",
                             .in_use = false,
                             .detail = "open /proc/net/snmp: Permission denied (errno 13)"}}});
  state_.NoteStoreResult(absl::ResourceExhaustedError("append samples: database or disk is full"),
                         kStarted + absl::Seconds(80));
  state_.NoteStoreResult(absl::ResourceExhaustedError("append samples: database or disk is full"),
                         kStarted + absl::Seconds(81));

  const nlohmann::json status = Get();
  EXPECT_EQ(status["sampling"]["samples"], 42);
  EXPECT_EQ(status["sampling"]["missed_intervals"], 1);
  EXPECT_EQ(status["sampling"]["windows"], 8);
  EXPECT_EQ(status["sampling"]["last_sample"], "2023-11-14T22:14:49+00:00");
  ASSERT_EQ(status["sources"].size(), 2u);
  EXPECT_EQ(status["sources"][0]["kind"], "bpf");
  EXPECT_FALSE(status["sources"][1]["in_use"].get<bool>());
  EXPECT_THAT(status["sources"][1]["detail"].get<std::string>(), HasSubstr("errno 13"));
  EXPECT_TRUE(status["bpf"]["in_use"].get<bool>());
  ASSERT_EQ(status["bpf"]["programs"].size(), 2u);
  EXPECT_TRUE(status["bpf"]["programs"][0]["attached"].get<bool>());
  EXPECT_EQ(status["bpf"]["programs"][1]["reason"], "tracepoint sock:sk_data_ready not found");
  EXPECT_TRUE(status["store"]["configured"].get<bool>());
  EXPECT_FALSE(status["store"]["healthy"].get<bool>());
  EXPECT_EQ(status["store"]["errors"], 2);
  EXPECT_THAT(status["store"]["last_error"].get<std::string>(), HasSubstr("disk is full"));
  EXPECT_EQ(status["store"]["last_error_time"], "2023-11-14T22:14:41+00:00");
  EXPECT_EQ(status["store"]["path"], "/var/lib/nictune/nictune.db");

  // The next successful operation makes the store healthy again; the count stays.
  state_.NoteStoreResult(absl::OkStatus(), kStarted + absl::Seconds(85));
  const nlohmann::json recovered = Get();
  EXPECT_TRUE(recovered["store"]["healthy"].get<bool>());
  EXPECT_EQ(recovered["store"]["errors"], 2);
}

TEST_F(StatusRouteTest, SaysWhyBpfIsNotInUse) {
  state_.SetBpf(
      {.in_use = false, .why_not = "bpf_object__load: Operation not permitted (errno 1)"});
  const nlohmann::json status = Get();
  EXPECT_FALSE(status["bpf"]["in_use"].get<bool>());
  EXPECT_THAT(status["bpf"]["why_not"].get<std::string>(), HasSubstr("errno 1"));
  EXPECT_TRUE(status["bpf"]["programs"].empty());
}

TEST_F(StatusRouteTest, OtherMethodsAndPathsAreRefused) {
  const Response post = router_.Dispatch({.method = "POST", .path = "/api/v1/status"});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(nlohmann::json::parse(post.body)["error"], "method_not_allowed");
  const Response typo = router_.Dispatch({.method = "GET", .path = "/api/v1/statu"});
  EXPECT_EQ(typo.status, 404);
}

class ApplyModeStatusTest : public StatusRouteTest {
 protected:
  ApplyModeStatusTest() : StatusRouteTest(service::Mode::kApply) {}
};

TEST_F(ApplyModeStatusTest, ReportsApplyModeWithoutACaveat) {
  const nlohmann::json status = Get();
  EXPECT_EQ(status["mode"], "apply");
  EXPECT_EQ(status["mode_note"].get<std::string>(), "");  // apply mode is implemented
  EXPECT_EQ(status["held"], nlohmann::json::array());
}

TEST_F(ApplyModeStatusTest, ListsTheChangesHeldBackWithTheirCauseAndSinceWhen) {
  state_.SetHeld({{.held = {.knob = tuner::Knob::kRxUsecs,
                            .target = "eth1",
                            .recommended = 64,
                            .why = tuner::HeldFor::kReversal,
                            .reason = "rx_usecs eth1: 8 -> 64 held: it reverses the last change"},
                   .since = kStarted + absl::Seconds(30)}});
  const nlohmann::json held = Get()["held"];
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0]["knob"], "rx_usecs");
  EXPECT_EQ(held[0]["target"], "eth1");
  EXPECT_EQ(held[0]["recommended"], 64);
  EXPECT_EQ(held[0]["cause"], "reversal");
  EXPECT_THAT(held[0]["reason"].get<std::string>(), HasSubstr("reverses the last change"));
  EXPECT_EQ(held[0]["since"], "2023-11-14T22:13:50+00:00");
}

}  // namespace
}  // namespace nictune::http
