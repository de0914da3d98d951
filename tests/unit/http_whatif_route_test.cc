// SPDX-License-Identifier: Apache-2.0
// POST /api/v1/whatif through the router: seed 001's contract (capacity 71.14 packets, 87 us
// drop-free at margin 0, drops at 100 us), the tuner's own plan behind every answer (whole
// packets, the cost floor, SO_RCVBUF advice, the ring), and strict body validation.
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
using ::testing::Not;
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

// What every recommendation must hold: drop-free in its own simulation, a buffer at least the
// question's and never 0.
void ExpectHonestRecommendation(const Json& answer) {
  const Json& r = answer["recommendation"];
  EXPECT_TRUE(r["drop_free"].get<bool>()) << r.dump();
  EXPECT_EQ(r["simulation"]["drops_per_s"], 0) << r.dump();
  EXPECT_EQ(r["simulation"]["rx_usecs"], r["rx_usecs"]);
  EXPECT_EQ(r["simulation"]["rcvbuf_bytes"], r["rcvbuf_bytes"]);
  EXPECT_GE(r["rcvbuf_bytes"].get<int64_t>(), answer["inputs"]["rcvbuf_bytes"].get<int64_t>());
  EXPECT_GT(r["rcvbuf_bytes"].get<int64_t>(), 0);
}

TEST(HttpWhatifRoute, Seed001FillMath) {
  const Json answer = PostOk(Seed001With(""));
  EXPECT_EQ(Round(answer["capacity_packets"].get<double>(), 2), 71.14);
  EXPECT_EQ(Round(answer["fill_time_us"].get<double>(), 1), 87.5);
  // 71 whole packets come in 87.36 us: the longest drop-free interval at margin 0, no gap.
  EXPECT_EQ(Round(answer["max_rx_usecs"].get<double>(), 2), 87.36);
  EXPECT_NEAR(answer["min_interrupt_rate"].get<double>(), 812744.0 / 71, 1);
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 87);
  EXPECT_EQ(answer["recommendation"]["rcvbuf_bytes"], 212992);
  EXPECT_TRUE(answer["recommendation"]["so_rcvbuf_bytes"].is_null());
  EXPECT_THAT(answer["recommendation"]["formula"].get<std::string>(),
              HasSubstr("212992 B / 2994 B = 71.14 packets"));
  EXPECT_THAT(answer["recommendation"]["rationale"].get<std::string>(),
              HasSubstr("a delivery there holds 71 packets of the 71.14 it can use"));
  // Without rx_usecs the recommendation is simulated, and it is drop-free.
  EXPECT_EQ(answer["rx_usecs"], 87);
  EXPECT_EQ(answer["simulation"]["rx_usecs"], 87);
  EXPECT_EQ(answer["simulation"]["drops_per_s"], 0);
  EXPECT_GT(answer["simulation"]["peak_socket_fill"].get<double>(), 0.9);
  // At 87 us a delivery is 71 whole packets: 71 * 2994 = 212574 B, just under the buffer.
  EXPECT_EQ(answer["packets_held"], 71);
  EXPECT_EQ(answer["rcvbuf_needed_bytes"], 71 * 2994);
  ExpectHonestRecommendation(answer);
}

TEST(HttpWhatifRoute, Seed001DropsAt100UsAndNotAt80) {
  const Json at100 = PostOk(Seed001With(R"(, "rx_usecs": 100)"));
  EXPECT_EQ(at100["simulation"]["rx_usecs"], 100);
  EXPECT_EQ(at100["simulation"]["rcvbuf_bytes"], 212992);  // the question's buffer
  EXPECT_GT(at100["simulation"]["drops_per_s"].get<double>(), 100'000);
  EXPECT_GT(at100["simulation"]["socket_drops"].get<int64_t>(), 0);
  EXPECT_EQ(at100["packets_held"], 82);  // floor(81.27) + 1
  EXPECT_EQ(at100["rcvbuf_needed_bytes"], 82 * 2994);
  // The recommendation is simulated on its own.
  EXPECT_EQ(at100["recommendation"]["simulation"]["rx_usecs"], 87);
  ExpectHonestRecommendation(at100);

  const Json at80 = PostOk(Seed001With(R"(, "rx_usecs": 80)"));
  EXPECT_EQ(at80["simulation"]["drops_per_s"], 0);
  EXPECT_NEAR(at80["simulation"]["interrupts_per_s"].get<double>(), 1e6 / 80, 1e6 / 80 * 0.05);
  EXPECT_LT(at80["rcvbuf_needed_bytes"].get<int64_t>(), 212992);
}

TEST(HttpWhatifRoute, FiguresCarryNoBinaryNoise) {
  // 0.1 of a CPU over 2 us is 50000 interrupts/s; the arithmetic gives 50000.00000000001.
  const Response response = Post(
      R"({"rate_pps": 20000, "truesize_bytes": 2304, "rcvbuf_bytes": 212992, "rx_usecs": 100})");
  ASSERT_EQ(response.status, 200) << response.body;
  const Json answer = Json::parse(response.body);
  EXPECT_EQ(answer["interrupt_ceiling"].get<double>(), 50000);
  EXPECT_THAT(response.body, Not(HasSubstr("0000000001")));
  EXPECT_THAT(response.body, Not(HasSubstr("9999999999")));
  // Twelve significant digits: the model's figures are kept.
  EXPECT_NEAR(answer["capacity_packets"].get<double>(), 212992.0 / 2304, 1e-9);
}

TEST(HttpWhatifRoute, TheFormulaTellsTheFillBoundFromTheDropFreeInterval) {
  // u_max = 0.95 * 4622.22 us = 4391.11 us; 87 whole packets of the 87.82 usable come in
  // 4350 us, so the drop-free interval ends there, below the fill bound.
  const Json answer =
      PostOk(R"({"rate_pps": 20000, "truesize_bytes": 2304, "rcvbuf_bytes": 212992})");
  const std::string formula = answer["recommendation"]["formula"].get<std::string>();
  EXPECT_THAT(formula,
              HasSubstr("fill bound u_max = (1 - 0.05) * 4622.22 us - 0.00 us = 4391.11 us"));
  EXPECT_THAT(formula, HasSubstr("drop-free up to u = 4350.00 us"));
  EXPECT_EQ(Round(answer["max_rx_usecs"].get<double>(), 1), 4350.0);
}

TEST(HttpWhatifRoute, AGapShorterThanADeliveryCostsNothing) {
  // The tuner's model: a 20 us gap is shorter than the 78 us between deliveries, so the socket
  // holds one delivery, as without it (the fill math's u + gap said 58 us).
  const Json answer = PostOk(
      R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 212992, "margin": 0.1,
          "drain_gap_us": 20})");
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 78);
  EXPECT_EQ(answer["inputs"]["drain_gap_us"], 20);
  ExpectHonestRecommendation(answer);
}

TEST(HttpWhatifRoute, DefaultMarginIsTheTunersFivePercent) {
  const Json answer =
      PostOk(R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 212992})");
  EXPECT_EQ(answer["inputs"]["margin"], 0.05);
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 82);  // 67 of the 67.58 usable packets
}

// Jumbo frames: 12 whole packets of 16896 B fit 212992 B. 130 kpps bring 12.48 packets' worth
// in 96 us, 13 whole ones; the plain fill math (T_fill 96.97 us) recommended 96 us, which drops
// 10000/s. The tuner's model stops at 92 us (11.96 packets' worth, 12 whole).
TEST(HttpWhatifRoute, JumboFramesCountWholePackets) {
  const Json answer = PostOk(
      R"({"rate_pps": 130000, "truesize_bytes": 16896, "rcvbuf_bytes": 212992, "margin": 0})");
  EXPECT_EQ(answer["recommendation"]["rx_usecs"], 92);
  ExpectHonestRecommendation(answer);
  const Json at96 = PostOk(
      R"({"rate_pps": 130000, "truesize_bytes": 16896, "rcvbuf_bytes": 212992, "margin": 0,
          "rx_usecs": 96})");
  EXPECT_GT(at96["simulation"]["drops_per_s"].get<double>(), 0);
  EXPECT_GT(at96["rcvbuf_needed_bytes"].get<int64_t>(), 212992);  // 13 * 16896
}

// When the drop-free interval is under a microsecond the buffer must grow, to what the tuner's
// cost floor (2 us per interrupt, 10% of a CPU: 20 us) needs, never to 0.
TEST(HttpWhatifRoute, AnIntervalUnderAMicrosecondGrowsTheBufferForTheCostFloor) {
  for (const char* body :
       {R"({"rate_pps": 10000000, "truesize_bytes": 768, "rcvbuf_bytes": 8192})",
        R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 2000})"}) {
    const Json answer = PostOk(body);
    const Json& r = answer["recommendation"];
    EXPECT_GE(r["rx_usecs"].get<int64_t>(), 20) << body;
    EXPECT_LE(r["interrupts_per_s"].get<double>(), 50'000) << body;
    ASSERT_TRUE(r["so_rcvbuf_bytes"].is_number()) << body;
    EXPECT_EQ(r["rcvbuf_bytes"].get<int64_t>(), 2 * r["so_rcvbuf_bytes"].get<int64_t>());
    EXPECT_THAT(r["rationale"].get<std::string>(), HasSubstr("Raise SO_RCVBUF to ")) << body;
    ExpectHonestRecommendation(answer);
  }
  // 10 Mpps at 20 us: the timer's packet and the 200 after it, the last due as it ends; 201 of
  // 768 B with 10% kept: 171520 B, SO_RCVBUF half.
  const Json fast = PostOk(
      R"({"rate_pps": 10000000, "truesize_bytes": 768, "rcvbuf_bytes": 8192, "margin": 0.1})");
  EXPECT_EQ(fast["recommendation"]["rx_usecs"], 20);
  EXPECT_EQ(fast["recommendation"]["so_rcvbuf_bytes"], 85760);
  EXPECT_THAT(fast["recommendation"]["formula"].get<std::string>(),
              HasSubstr("the kernel doubles SO_RCVBUF: ceil(171520 / 2) = 85760"));
}

// No interval fits 1 packet against a 50 us gap at 1 Mpps: the gap is the cause, and the advice
// is an interval the tuner's ceiling allows (not rx-usecs 0, 1M interrupts/s) with the buffer it
// needs there, simulated with that buffer.
TEST(HttpWhatifRoute, NoWorkableIntervalBlamesTheGapAndSimulatesTheNewBuffer) {
  const Json answer = PostOk(
      R"({"rate_pps": 1000000, "truesize_bytes": 2000, "rcvbuf_bytes": 2000, "margin": 0,
          "drain_gap_us": 50})");
  EXPECT_TRUE(answer["max_rx_usecs"].is_null());
  EXPECT_TRUE(answer["min_interrupt_rate"].is_null());
  const Json& r = answer["recommendation"];
  EXPECT_GE(r["rx_usecs"].get<int64_t>(), 20);
  EXPECT_THAT(r["rationale"].get<std::string>(), HasSubstr("the reader's 50 us drain gap"));
  EXPECT_THAT(r["rationale"].get<std::string>(), Not(HasSubstr("ceiling")));
  EXPECT_EQ(answer["simulation"]["rcvbuf_bytes"], r["rcvbuf_bytes"]);
  ExpectHonestRecommendation(answer);
  // Seed 001 behind a 2 ms gap: the same, with the longer interval a grown buffer allows.
  const Json gap = PostOk(Seed001With(R"(, "drain_gap_us": 2000)"));
  EXPECT_THAT(gap["recommendation"]["rationale"].get<std::string>(),
              HasSubstr("the reader's 2000 us drain gap"));
  ExpectHonestRecommendation(gap);
}

// The interrupt-rate ceiling, not a gap: 10 Mpps into 64 KiB of 768 B packets fit up to 8.1 us
// (81 whole packets of the 81.07 usable), below the cost floor of the tuner's assumed 2 us per
// interrupt at 10% of a CPU (20 us).
TEST(HttpWhatifRoute, AnIntervalBelowTheCostFloorBlamesTheCeiling) {
  const Json answer =
      PostOk(R"({"rate_pps": 10000000, "truesize_bytes": 768, "rcvbuf_bytes": 65536})");
  EXPECT_NEAR(answer["max_rx_usecs"].get<double>(), 8.1, 0.05);
  const std::string why = answer["recommendation"]["rationale"].get<std::string>();
  EXPECT_THAT(why, HasSubstr("the ceiling of 50000 interrupts/s"));
  EXPECT_THAT(why, Not(HasSubstr("drain gap")));
  ExpectHonestRecommendation(answer);
}

// The ring caps the interval as the tuner's does: 2 Mpps into 8 MiB fits 1637 us at a 10%
// margin, but 1024 descriptors hold (1 - 0.1) * 1024 / 2 Mpps - 2 us = 458.8 us.
TEST(HttpWhatifRoute, TheRingCapsTheInterval) {
  const Json unknown = PostOk(
      R"({"rate_pps": 2000000, "truesize_bytes": 2304, "rcvbuf_bytes": 8388608, "margin": 0.1})");
  EXPECT_EQ(unknown["recommendation"]["rx_usecs"], 1637);
  EXPECT_TRUE(unknown["ring_limit_us"].is_null());
  ExpectHonestRecommendation(unknown);
  const Json ring = PostOk(
      R"({"rate_pps": 2000000, "truesize_bytes": 2304, "rcvbuf_bytes": 8388608, "margin": 0.1,
          "ring_size": 1024})");
  EXPECT_EQ(ring["recommendation"]["rx_usecs"], 458);
  EXPECT_NEAR(ring["ring_limit_us"].get<double>(), 458.8, 1e-6);
  EXPECT_EQ(ring["simulation"]["ring_size"], 1024);
  EXPECT_THAT(ring["recommendation"]["rationale"].get<std::string>(), HasSubstr("overruns the ring"));
  ExpectHonestRecommendation(ring);
  // 819 us on that ring: the simulator misses packets.
  const Json at819 = PostOk(
      R"({"rate_pps": 2000000, "truesize_bytes": 2304, "rcvbuf_bytes": 8388608, "margin": 0.1,
          "ring_size": 1024, "rx_usecs": 819})");
  EXPECT_GT(at819["simulation"]["ring_drops"].get<int64_t>(), 0);
}

TEST(HttpWhatifRoute, WordsForOnePacket) {
  // One whole packet fits (1.33 of 2000 B): "1 packet", never "1 packets".
  const Json answer = PostOk(
      R"({"rate_pps": 1000, "truesize_bytes": 1500, "rcvbuf_bytes": 2000, "margin": 0})");
  const std::string text = answer.dump();
  EXPECT_THAT(text, Not(HasSubstr(" 1 packets")));
  EXPECT_THAT(answer["recommendation"]["rationale"].get<std::string>(),
              HasSubstr("holds 1 packet of the 1.33"));
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
       "\"rate_pps\": must be >= 1 and <= 1e+07, got -5"},
      {R"({"rate_pps": 1e300, "truesize_bytes": 2994, "rcvbuf_bytes": 212992})",
       "\"rate_pps\": must be >= 1 and <= 1e+07"},
      // A rate whose simulated span overflowed int64 (undefined behaviour) is out of range.
      {R"({"rate_pps": 1e-12, "truesize_bytes": 1, "rcvbuf_bytes": 1, "rx_usecs": 100})",
       "\"rate_pps\": must be >= 1 and <= 1e+07, got 1e-12"},
      {R"({"rate_pps": 812744, "truesize_bytes": 2994.5, "rcvbuf_bytes": 212992})",
       "\"truesize_bytes\": expected an integer, got 2994.5"},
      {R"({"rate_pps": 812744, "truesize_bytes": 0, "rcvbuf_bytes": 212992})",
       "\"truesize_bytes\": must be from 1 to 1048576"},
      {R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 99999999999})",
       "\"rcvbuf_bytes\": must be from 1 to 2147483647"},
      {R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 18446744073709551615})",
       "\"rcvbuf_bytes\": must be from 1 to 2147483647"},
      {Seed001With(R"(, "rx_usecs": -1)"), "\"rx_usecs\": must be from 0 to 100000"},
      {Seed001With(R"(, "rx_usecs": null)"), "\"rx_usecs\": expected an integer, got null"},
      {Seed001With(R"(, "ring_size": 0)"), "\"ring_size\": must be from 1 to 65536"},
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
    // The answer is to that request: its detail does not name it again.
    EXPECT_THAT(error["detail"].get<std::string>(), Not(HasSubstr("POST /api/v1/whatif")));
  }
}

// The smallest and largest questions the ranges allow answer 200 with a simulated span inside
// its bounds: no conversion of an out-of-range double.
TEST(HttpWhatifRoute, ExtremeQuestionsAnswerWithBoundedSimulations) {
  for (const char* body : {
           R"({"rate_pps": 1, "truesize_bytes": 1, "rcvbuf_bytes": 1, "rx_usecs": 100})",
           R"({"rate_pps": 1, "truesize_bytes": 1048576, "rcvbuf_bytes": 1, "margin": 0.9,
               "drain_gap_us": 100000})",
           R"({"rate_pps": 10000000, "truesize_bytes": 1, "rcvbuf_bytes": 2147483647,
               "rx_usecs": 100000})",
           R"({"rate_pps": 10000000, "truesize_bytes": 1048576, "rcvbuf_bytes": 2147483647,
               "drain_gap_us": 100000, "ring_size": 1})",
       }) {
    const Json answer = PostOk(body);
    for (const Json* sim : {&answer["simulation"], &answer["recommendation"]["simulation"]}) {
      EXPECT_GT((*sim)["duration_s"].get<double>(), 0) << body;
      EXPECT_LE((*sim)["duration_s"].get<double>(), 1) << body;
    }
    EXPECT_GE(answer["rcvbuf_needed_bytes"].get<int64_t>(), 0) << body;
    EXPECT_GE(answer["recommendation"]["rcvbuf_bytes"].get<int64_t>(),
              answer["inputs"]["rcvbuf_bytes"].get<int64_t>())
        << body;
  }
}

TEST(HttpWhatifRoute, HighRatesSimulateAShorterSpanOfTraffic) {
  const Json slow = PostOk(Seed001With(""));
  EXPECT_EQ(slow["simulation"]["duration_s"], 1.0);
  // 10 Mpps: about 2e6 packets, 0.2 s, still thousands of 27 us intervals.
  const Json fast = PostOk(
      R"({"rate_pps": 10000000, "truesize_bytes": 768, "rcvbuf_bytes": 212992, "margin": 0})");
  EXPECT_EQ(fast["simulation"]["duration_s"], 0.2);
  EXPECT_EQ(fast["recommendation"]["rx_usecs"], 27);  // 277 whole packets in 27.7 us
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
  absl::StatusOr<tuner::WhatIfQuestion> parsed =
      ParseWhatifRequest(R"({"rate_pps": 1.5, "truesize_bytes": 768, "rcvbuf_bytes": 4096})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->rate_pps, 1.5);
  EXPECT_EQ(parsed->drain_gap_us, 0);
  EXPECT_EQ(parsed->margin, tuner::kDefaultMargin);
  EXPECT_FALSE(parsed->rx_usecs.has_value());
  EXPECT_FALSE(parsed->ring_size.has_value());
}

}  // namespace
}  // namespace nictune::http
