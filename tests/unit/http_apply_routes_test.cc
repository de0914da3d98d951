// SPDX-License-Identifier: Apache-2.0
// The contracts of POST /api/v1/apply, /api/v1/rollback and /api/v1/restore through the router,
// with a fake in place of the service's tuning: status codes, what each body asks of the tuning,
// the JSON each answers with, and the token rule for them on TCP.
#include <optional>
#include <string>
#include <vector>

#include "agent/http/apply_route.h"
#include "agent/http/bearer_token.h"
#include "agent/http/restore_route.h"
#include "agent/http/rollback_route.h"
#include "agent/http/router.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using actuate::ActuationResult;
using actuate::Outcome;
using driver::knobs::KnobAddress;
using ::testing::HasSubstr;
using Json = nlohmann::json;

class FakeTuning : public service::TuningControl {
 public:
  service::Mode mode() const override { return mode_; }

  absl::StatusOr<actuate::ControlStepSummary> ApplyNow(const std::optional<KnobAddress>& only,
                                                       absl::Time) override {
    apply_calls.push_back(only);
    if (!apply_status.ok()) return apply_status;
    actuate::ControlStepSummary summary;
    tuner::Apply action{tuner::Knob::kRxUsecs, "eth1", 8, 16, "step toward 64"};
    summary.actions.push_back(action);
    summary.results.push_back(Written());
    summary.readings.push_back({tuner::Knob::kRxUsecs, "eth1", 8, "", std::nullopt});
    ActuationResult gone;
    gone.address = {tuner::Knob::kNapiDeferHardIrqs, "veth9"};
    gone.outcome = Outcome::kReleased;
    gone.message = "device veth9 is gone";
    summary.gone.push_back(gone);
    summary.held.push_back({.knob = tuner::Knob::kRxFrames,
                            .target = "eth1",
                            .recommended = 64,
                            .why = tuner::HeldFor::kConfidence,
                            .reason = "rx_frames eth1: 0 -> 64 held: confidence 0.12 < 0.25"});
    summary.not_journaled = 1;
    summary.journal_error = absl::ResourceExhaustedError("journal: disk full");
    return summary;
  }
  absl::StatusOr<ActuationResult> RollbackChange(int64_t change_id, absl::Time) override {
    rollback_ids.push_back(change_id);
    if (change_id == 404) return absl::NotFoundError("rollback change 404: no pending change");
    ActuationResult result = Written();
    result.outcome = Outcome::kRestored;
    result.after = 8;
    return result;
  }
  ActuationResult RollbackKnob(const KnobAddress& address, absl::Time) override {
    rollback_knobs.push_back(address);
    ActuationResult result = Written();
    result.address = address;
    result.outcome = rollback_outcome;
    result.message = "someone else owns it";
    return result;
  }
  actuate::RestoreReport RestoreAll(absl::Time) override {
    ++restores;
    return restore_report;
  }

  static ActuationResult Written() {
    ActuationResult result;
    result.address = {tuner::Knob::kRxUsecs, "eth1"};
    result.outcome = Outcome::kWritten;
    result.before = 8;
    result.after = 16;
    result.change_id = 7;
    result.message = "8 -> 16";
    return result;
  }

  service::Mode mode_ = service::Mode::kApply;
  absl::Status apply_status;
  Outcome rollback_outcome = Outcome::kRestored;
  actuate::RestoreReport restore_report;
  std::vector<std::optional<KnobAddress>> apply_calls;
  std::vector<int64_t> rollback_ids;
  std::vector<KnobAddress> rollback_knobs;
  int restores = 0;
};

class ApplyRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(AddApplyRoute(router_, tuning_).ok());
    ASSERT_TRUE(AddRollbackRoute(router_, tuning_).ok());
    ASSERT_TRUE(AddRestoreRoute(router_, tuning_).ok());
  }
  Response Post(const std::string& path, const std::string& body) {
    return router_.Dispatch(
        Request{.method = "POST", .path = path, .body = body, .transport = Transport::kUnixSocket});
  }
  static Json Body(const Response& response) {
    Json parsed = Json::parse(response.body, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << response.body;
    return parsed;
  }

  FakeTuning tuning_;
  Router router_;
};

TEST_F(ApplyRoutesTest, ApplyWithoutBodyRunsOneStepOverEveryRecommendation) {
  const Response response = Post(kApplyPath, "");
  ASSERT_EQ(response.status, 200) << response.body;
  ASSERT_EQ(tuning_.apply_calls.size(), 1u);
  EXPECT_FALSE(tuning_.apply_calls[0].has_value());
  const Json step = Body(response)["step"];
  ASSERT_EQ(step["actions"].size(), 1u);
  EXPECT_EQ(step["actions"][0]["action"], "apply");
  EXPECT_EQ(step["actions"][0]["outcome"], "written");
  EXPECT_EQ(step["actions"][0]["before"], 8);
  EXPECT_EQ(step["actions"][0]["after"], 16);
  EXPECT_EQ(step["actions"][0]["change_id"], 7);
  EXPECT_EQ(step["actions"][0]["reason"], "step toward 64");
  EXPECT_EQ(step["readings"][0]["value"], 8);
  ASSERT_EQ(step["gone"].size(), 1u);
  EXPECT_EQ(step["gone"][0]["target"], "veth9");
  EXPECT_EQ(step["gone"][0]["outcome"], "released");
  ASSERT_EQ(step["held"].size(), 1u);
  EXPECT_EQ(step["held"][0]["knob"], "rx_frames");
  EXPECT_EQ(step["held"][0]["target"], "eth1");
  EXPECT_EQ(step["held"][0]["recommended"], 64);
  EXPECT_EQ(step["held"][0]["cause"], "confidence");
  EXPECT_THAT(step["held"][0]["reason"].get<std::string>(), HasSubstr("confidence 0.12 < 0.25"));
  EXPECT_THAT(step["summary"].get<std::string>(),
              HasSubstr("1 held, 0 verified, 0 writes failed; rx_usecs eth1 written: 8 -> 16; "));
  EXPECT_EQ(step["not_journaled"], 1);
  EXPECT_THAT(step["journal_error"].get<std::string>(), HasSubstr("disk full"));
}

TEST_F(ApplyRoutesTest, ApplyOneKnobPassesItsAddress) {
  ASSERT_EQ(Post(kApplyPath, R"({"knob": "rx_usecs", "target": "eth1"})").status, 200);
  ASSERT_EQ(tuning_.apply_calls.size(), 1u);
  ASSERT_TRUE(tuning_.apply_calls[0].has_value());
  EXPECT_EQ(tuning_.apply_calls[0]->knob, tuner::Knob::kRxUsecs);
  EXPECT_EQ(tuning_.apply_calls[0]->target, "eth1");
}

TEST_F(ApplyRoutesTest, ApplyOutsideApplyModeIs409WithTheReason) {
  tuning_.apply_status = absl::FailedPreconditionError(
      "apply: nictuned runs in recommend mode, which never writes a knob");
  const Response response = Post(kApplyPath, "{}");
  EXPECT_EQ(response.status, 409);
  EXPECT_EQ(Body(response)["error"], "conflict");
  EXPECT_THAT(Body(response)["detail"].get<std::string>(), HasSubstr("recommend mode"));
}

TEST_F(ApplyRoutesTest, ApplyForAKnobNothingRecommendsIs404) {
  tuning_.apply_status = absl::NotFoundError("apply: the latest window recommends nothing");
  EXPECT_EQ(Post(kApplyPath, R"({"knob": "rx_usecs", "target": "eth9"})").status, 404);
}

TEST_F(ApplyRoutesTest, MalformedBodiesAre400AndReachNothing) {
  for (const char* body :
       {"not json", "[1]", R"({"knob": "rx_usecs"})",
        R"({"knob": "warp_factor", "target": "eth1"})", R"({"knob": 3, "target": "eth1"})"}) {
    const Response response = Post(kApplyPath, body);
    EXPECT_EQ(response.status, 400) << body;
    EXPECT_EQ(Body(response)["error"], "bad_request") << body;
  }
  for (const char* body : {"", "{}", R"({"change_id": 0})", R"({"change_id": "7"})",
                           R"({"change_id": 7, "knob": "rx_usecs"})", R"({"target": "eth1"})"}) {
    EXPECT_EQ(Post(kRollbackPath, body).status, 400) << body;
  }
  EXPECT_TRUE(tuning_.apply_calls.empty());
  EXPECT_TRUE(tuning_.rollback_ids.empty());
  EXPECT_TRUE(tuning_.rollback_knobs.empty());
}

TEST_F(ApplyRoutesTest, RollbackByChangeIdOrByKnob) {
  Response response = Post(kRollbackPath, R"({"change_id": 12})");
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(tuning_.rollback_ids, std::vector<int64_t>{12});
  EXPECT_EQ(Body(response)["result"]["outcome"], "restored");
  EXPECT_EQ(Body(response)["result"]["after"], 8);

  EXPECT_EQ(Post(kRollbackPath, R"({"change_id": 404})").status, 404);

  response = Post(kRollbackPath, R"({"knob": "napi_defer_hard_irqs", "target": "tap0"})");
  ASSERT_EQ(response.status, 200) << response.body;
  ASSERT_EQ(tuning_.rollback_knobs.size(), 1u);
  EXPECT_EQ(tuning_.rollback_knobs[0].knob, tuner::Knob::kNapiDeferHardIrqs);
  EXPECT_EQ(tuning_.rollback_knobs[0].target, "tap0");
}

TEST_F(ApplyRoutesTest, RollbackTheActuatorRefusesIs409WithItsResult) {
  tuning_.rollback_outcome = Outcome::kReleased;
  const Response response = Post(kRollbackPath, R"({"knob": "rx_usecs", "target": "eth1"})");
  EXPECT_EQ(response.status, 409);
  EXPECT_EQ(Body(response)["result"]["outcome"], "released");
  EXPECT_EQ(Body(response)["detail"], "someone else owns it");
}

TEST_F(ApplyRoutesTest, RestoreReportsEachKnobAndFailsWhenAnOriginalIsStillOwed) {
  ActuationResult restored = FakeTuning::Written();
  restored.outcome = Outcome::kRestored;
  tuning_.restore_report.restored.push_back(restored);
  Response response = Post(kRestorePath, "");
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(tuning_.restores, 1);
  EXPECT_EQ(Body(response)["restored"].size(), 1u);
  EXPECT_EQ(Body(response)["failed"].size(), 0u);

  ActuationResult failed = FakeTuning::Written();
  failed.outcome = Outcome::kFailed;
  failed.error = absl::InternalError("write rx_usecs eth1: Device or resource busy (errno 16)");
  tuning_.restore_report.failed.push_back(failed);
  response = Post(kRestorePath, "");
  EXPECT_EQ(response.status, 500);
  EXPECT_THAT(Body(response)["failed"][0]["error"].get<std::string>(), HasSubstr("errno 16"));

  tuning_.restore_report.error = absl::UnavailableError("store: database is locked");
  EXPECT_EQ(Post(kRestorePath, "").status, 503);
}

TEST_F(ApplyRoutesTest, OnTcpEachNeedsTheTokenOnTheUnixSocketNone) {
  const std::optional<std::string> token = "0123456789abcdef-token";
  for (const char* path : {kApplyPath, kRollbackPath, kRestorePath}) {
    Request tcp{.method = "POST", .path = path, .transport = Transport::kTcp};
    // The route itself declares that it changes state; the token rule follows it.
    ASSERT_EQ(router_.EffectOf(tcp), Effect::kChanges) << path;
    std::optional<Response> refused = RefuseUnauthorized(tcp, router_.EffectOf(tcp), token);
    ASSERT_TRUE(refused.has_value()) << path;
    EXPECT_EQ(refused->status, 403) << path;
    tcp.authorization = "Bearer 0123456789abcdef-token";
    EXPECT_FALSE(RefuseUnauthorized(tcp, router_.EffectOf(tcp), token).has_value()) << path;
    Request unix_socket{.method = "POST", .path = path, .transport = Transport::kUnixSocket};
    EXPECT_FALSE(
        RefuseUnauthorized(unix_socket, router_.EffectOf(unix_socket), std::nullopt).has_value())
        << path;
  }
}

}  // namespace
}  // namespace nictune::http
