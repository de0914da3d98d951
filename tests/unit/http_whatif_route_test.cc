// POST /api/v1/whatif through the router: seed 001's contract (capacity 71.14 packets, fill time
// 87.5 us, drops at 100 us and none at 80 us), the recommendation, and strict body validation.
#include <cmath>
#include <string>

#include "agent/http/bearer_token.h"
#include "agent/http/router.h"
#include "agent/http/whatif_request.h"
#include "agent/http/whatif_route.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::http {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

Response Post(const std::string& body) {
  Router router;
  EXPECT_TRUE(AddWhatifRoute(router).ok());
  return router.Dispatch(Request{.method = "POST", .path = "/api/v1/whatif", .body = body});
}

Json PostOk(const std::string& body) {
  const Response response = Post(body);
  EXPECT_EQ(response.status, 200) << response.body;
  Json parsed = Json::parse(response.body, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << response.body;
  return parsed;
}

double Round(double value, int decimals) {
  const double scale = std::pow(10, decimals);
  return std::round(value * scale) / scale;
}

constexpr const char* kSeed001 =
    R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 212992, "margin": 0)";

std::string Seed001With(const std::string& extra) { return std::string(kSeed001) + extra + "}"; }

TEST(HttpWhatifRoute, Seed001FillMath) {
  const Json answer = PostOk(Seed001With(""));
  EXPECT_EQ(Round(answer["capacity_packets"].get<double>(), 2), 71.14);
  EXPECT_EQ(Round(answer["fill_time_us"].get<double>(), 1), 87.5);
  EXPECT_EQ(Round(answer["max_rx_usecs"].get<double>(), 1), 87.5);  // margin 0, no gap
  EXPECT_NEAR(answer["min_interrupt_rate"].get<double>(), 1e6 / 87.53, 1);
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 87);
  EXPECT_THAT(answer["recommendation"]["formula"].get<std::string>(),
              HasSubstr("212992 B / 2994 B = 71.14 packets"));
  // Without rx_usecs the recommended interval is simulated, and it is drop-free.
  EXPECT_EQ(answer["rx_usecs"], 87);
  EXPECT_EQ(answer["simulation"]["rx_usecs"], 87);
  EXPECT_EQ(answer["simulation"]["drops_per_s"], 0);
  EXPECT_GT(answer["simulation"]["peak_socket_fill"].get<double>(), 0.9);
  // rcvbuf_needed at 87 us: 812744 * 87e-6 * 2994 = 211699 B, just under the 212992 B buffer.
  EXPECT_NEAR(answer["rcvbuf_needed_bytes"].get<double>(), 812744 * 87e-6 * 2994, 1);
}

TEST(HttpWhatifRoute, Seed001DropsAt100UsAndNotAt80) {
  const Json at100 = PostOk(Seed001With(R"(, "rx_usecs": 100)"));
  EXPECT_EQ(at100["simulation"]["rx_usecs"], 100);
  EXPECT_GT(at100["simulation"]["drops_per_s"].get<double>(), 100'000);
  EXPECT_GT(at100["simulation"]["socket_drops"].get<int64_t>(), 0);
  EXPECT_GT(at100["rcvbuf_needed_bytes"].get<int64_t>(), 212992);

  const Json at80 = PostOk(Seed001With(R"(, "rx_usecs": 80)"));
  EXPECT_EQ(at80["simulation"]["drops_per_s"], 0);
  EXPECT_NEAR(at80["simulation"]["interrupts_per_s"].get<double>(), 1e6 / 80, 1e6 / 80 * 0.05);
  EXPECT_LT(at80["rcvbuf_needed_bytes"].get<int64_t>(), 212992);
}

TEST(HttpWhatifRoute, MarginAndDrainGapShortenTheInterval) {
  // u_max = 0.9 * 87.53 - 20 = 58.8 us.
  const Json answer = PostOk(
      R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 212992, "margin": 0.1,
          "drain_gap_us": 20})");
  EXPECT_NEAR(answer["max_rx_usecs"].get<double>(), 0.9 * 87.53 - 20, 0.05);
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 58);
  EXPECT_EQ(answer["inputs"]["drain_gap_us"], 20);
}

TEST(HttpWhatifRoute, DefaultMarginIsTheTunersTenPercent) {
  const Json answer =
      PostOk(R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 212992})");
  EXPECT_EQ(answer["inputs"]["margin"], 0.1);
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 78);  // floor(0.9 * 87.53)
}

TEST(HttpWhatifRoute, NoWorkableIntervalRecommendsABuffer) {
  // 1 packet of capacity at 1 Mpps fills in 1 us; a 50 us gap leaves nothing.
  const Json answer = PostOk(
      R"({"rate_pps": 1000000, "truesize_bytes": 2000, "rcvbuf_bytes": 2000, "margin": 0,
          "drain_gap_us": 50})");
  EXPECT_LT(answer["max_rx_usecs"].get<double>(), 0);
  EXPECT_TRUE(answer["min_interrupt_rate"].is_null());
  EXPECT_TRUE(answer["recommendation"]["rx_usecs"].is_null());
  // rate * (0 + 50 us) * truesize = 1e6 * 50e-6 * 2000 = 100000 B.
  EXPECT_EQ(answer["recommendation"]["rcvbuf_bytes"], 100000);
  EXPECT_GT(answer["simulation"]["drops_per_s"].get<double>(), 0);
}

TEST(HttpWhatifRoute, BadBodiesAre400NamingTheField) {
  const struct {
    std::string body;
    std::string names;
  } cases[] = {
      {"", "not valid JSON"},
      {"[1]", "expected a JSON object, got array"},
      {R"({"truesize_bytes": 2994, "rcvbuf_bytes": 212992})", "\"rate_pps\": required"},
      {Seed001With(R"(, "rx_usec": 80)"), "\"rx_usec\" is unknown"},
      {R"({"rate_pps": 1, "rate_pps": 2, "truesize_bytes": 2994, "rcvbuf_bytes": 1})",
       "\"rate_pps\": given more than once"},
      {R"({"rate_pps": "812744", "truesize_bytes": 2994, "rcvbuf_bytes": 212992})",
       "\"rate_pps\": expected a number, got \"812744\""},
      {R"({"rate_pps": -5, "truesize_bytes": 2994, "rcvbuf_bytes": 212992})",
       "\"rate_pps\": must be > 0"},
      {R"({"rate_pps": 1e300, "truesize_bytes": 2994, "rcvbuf_bytes": 212992})",
       "\"rate_pps\": must be > 0 and <= 1e+07"},
      {R"({"rate_pps": 812744, "truesize_bytes": 2994.5, "rcvbuf_bytes": 212992})",
       "\"truesize_bytes\": expected an integer, got 2994.5"},
      {R"({"rate_pps": 812744, "truesize_bytes": 0, "rcvbuf_bytes": 212992})",
       "\"truesize_bytes\": must be from 1"},
      {R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 99999999999})",
       "\"rcvbuf_bytes\": must be from 1 to 2147483647"},
      {R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 18446744073709551615})",
       "\"rcvbuf_bytes\": must be from 1 to 2147483647"},
      {Seed001With(R"(, "rx_usecs": -1)"), "\"rx_usecs\": must be from 0 to 100000"},
      {Seed001With(R"(, "rx_usecs": null)"), "\"rx_usecs\": expected an integer, got null"},
      {Seed001With(R"(, "drain_gap_us": {"a": 1})"),
       "\"drain_gap_us\": expected an integer, got object"},
      {R"({"rate_pps": 1, "truesize_bytes": 1, "rcvbuf_bytes": 1, "margin": 1})",
       "\"margin\": must be >= 0 and <= 0.9"},
  };
  for (const auto& c : cases) {
    const Response response = Post(c.body);
    EXPECT_EQ(response.status, 400) << c.body;
    const Json error = Json::parse(response.body, nullptr, false);
    ASSERT_TRUE(error.is_object()) << response.body;
    EXPECT_EQ(error["error"], "bad_request");
    EXPECT_THAT(error["detail"].get<std::string>(), HasSubstr(c.names)) << c.body;
    EXPECT_THAT(error["detail"].get<std::string>(), HasSubstr("POST /api/v1/whatif"));
  }
}

TEST(HttpWhatifRoute, HighRatesSimulateAShorterSpanOfTraffic) {
  const Json slow = PostOk(Seed001With(""));
  EXPECT_EQ(slow["simulation"]["duration_s"], 1.0);
  // 10 Mpps: about 2e6 packets, 0.2 s, still hundreds of 8 us intervals.
  const Json fast = PostOk(
      R"({"rate_pps": 10000000, "truesize_bytes": 768, "rcvbuf_bytes": 212992, "margin": 0})");
  EXPECT_EQ(fast["simulation"]["duration_s"], 0.2);
  EXPECT_EQ(fast["recommendation"]["rx_usecs"], 27);  // 212992 / 768 / 1e7 = 27.7 us
  EXPECT_EQ(fast["simulation"]["drops_per_s"], 0);
  // Long intervals keep ten of them in the run.
  const Json long_interval = PostOk(
      R"({"rate_pps": 10000000, "truesize_bytes": 768, "rcvbuf_bytes": 212992, "rx_usecs": 50000})");
  EXPECT_EQ(long_interval["simulation"]["duration_s"], 0.5);
  EXPECT_GT(long_interval["simulation"]["drops_per_s"].get<double>(), 0);
}

TEST(HttpWhatifRoute, NeedsNoTokenOnTcp) {
  // It computes and writes nothing: its route says so, and the token rule follows the route.
  Router router;
  ASSERT_TRUE(AddWhatifRoute(router).ok());
  const Request whatif{.method = "POST", .path = "/api/v1/whatif", .transport = Transport::kTcp};
  EXPECT_EQ(router.EffectOf(whatif), Effect::kReadsOnly);
  EXPECT_FALSE(RefuseUnauthorized(whatif, router.EffectOf(whatif), std::nullopt).has_value());
}

TEST(HttpWhatifRoute, OnlyPost) {
  Router router;
  ASSERT_TRUE(AddWhatifRoute(router).ok());
  const Response response = router.Dispatch(Request{.method = "GET", .path = "/api/v1/whatif"});
  EXPECT_EQ(response.status, 405);
}

TEST(WhatifRequest, OptionalFieldsDefault) {
  absl::StatusOr<WhatifRequest> parsed =
      ParseWhatifRequest(R"({"rate_pps": 1.5, "truesize_bytes": 768, "rcvbuf_bytes": 4096})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->rate_pps, 1.5);
  EXPECT_EQ(parsed->drain_gap_us, 0);
  EXPECT_EQ(parsed->margin, 0.10);
  EXPECT_FALSE(parsed->rx_usecs.has_value());
}

}  // namespace
}  // namespace nictune::http
