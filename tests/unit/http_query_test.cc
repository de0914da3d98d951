// SPDX-License-Identifier: Apache-2.0
#include "agent/http/query.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

const absl::Time kNow = absl::FromUnixSeconds(1'735'787'045);  // 2025-01-02T03:04:05Z

TEST(QueryStringTest, DecodesPercentEscapesAndPlusInOrder) {
  const auto q = ParseQueryString("series=a%2Cb&since=2025-01-02T03%3A04%3A05Z&note=x+y");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(*q, ElementsAre(Pair("series", "a,b"), Pair("since", "2025-01-02T03:04:05Z"),
                              Pair("note", "x y")));
  EXPECT_TRUE(ParseQueryString("").ok());
  EXPECT_TRUE(ParseQueryString("empty=").ok());
}

TEST(QueryStringTest, RejectsWhatItCannotAccountFor) {
  EXPECT_THAT(ParseQueryString("a=1&&b=2").status().message(), HasSubstr("name=value"));
  EXPECT_THAT(ParseQueryString("flag").status().message(), HasSubstr("name=value"));
  EXPECT_THAT(ParseQueryString("=1").status().message(), HasSubstr("non-empty name"));
  EXPECT_THAT(ParseQueryString("a=%G1").status().message(), HasSubstr("malformed %-escape"));
  EXPECT_THAT(ParseQueryString("a=%4").status().message(), HasSubstr("malformed %-escape"));
  EXPECT_THAT(ParseQueryString("a=x%0Ay").status().message(), HasSubstr("control byte 10"));
  EXPECT_THAT(ParseQueryString(std::string(kMaxQueryBytes + 1, 'a')).status().message(),
              HasSubstr("exceeds the limit"));
}

TEST(HistoryQueryTest, DefaultsToTheLastHourInTenSecondSteps) {
  const auto q = ParseHistoryQuery("series=softnet_dropped", kNow);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(q->series, ElementsAre("softnet_dropped"));
  EXPECT_EQ(q->until, kNow);
  EXPECT_EQ(q->since, kNow - absl::Hours(1));
  EXPECT_EQ(q->step, absl::Seconds(10));
}

TEST(HistoryQueryTest, AcceptsRfc3339AndUnixSecondsAndDurations) {
  const auto q = ParseHistoryQuery(
      "series=Udp.RcvbufErrors,napi:polls&since=2025-01-02T02%3A04%3A05Z&until=1735787000.25"
      "&step=1m30s",
      kNow);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_THAT(q->series, ElementsAre("Udp.RcvbufErrors", "napi:polls"));
  EXPECT_EQ(q->since, absl::FromUnixSeconds(1'735'783'445));
  EXPECT_EQ(q->until, absl::FromUnixSeconds(1'735'787'000) + absl::Milliseconds(250));
  EXPECT_EQ(q->step, absl::Seconds(90));
  const auto seconds = ParseHistoryQuery("series=a&step=15", kNow);
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_EQ(seconds->step, absl::Seconds(15));
}

TEST(HistoryQueryTest, RejectsUnknownRepeatedAndMissingParameters) {
  EXPECT_THAT(ParseHistoryQuery("series=a&stpe=10s", kNow).status().message(),
              HasSubstr("\"stpe\" is unknown"));
  EXPECT_THAT(ParseHistoryQuery("series=a&series=b", kNow).status().message(),
              HasSubstr("more than once"));
  EXPECT_THAT(ParseHistoryQuery("since=1", kNow).status().message(), HasSubstr("required"));
  EXPECT_THAT(ParseHistoryQuery("series=a,,b", kNow).status().message(),
              HasSubstr("not a series name"));
  EXPECT_THAT(ParseHistoryQuery("series=1abc", kNow).status().message(),
              HasSubstr("not a series name"));
  std::string many = "series=s0";
  for (int i = 1; i <= 32; ++i) many += ",s" + std::to_string(i);
  EXPECT_THAT(ParseHistoryQuery(many, kNow).status().message(), HasSubstr("at most 32"));
}

TEST(HistoryQueryTest, RejectsBadTimesStepsAndRanges) {
  EXPECT_THAT(ParseHistoryQuery("series=a&since=yesterday", kNow).status().message(),
              HasSubstr("since=\"yesterday\""));
  EXPECT_FALSE(ParseHistoryQuery("series=a&since=-5", kNow).ok());
  EXPECT_FALSE(ParseHistoryQuery("series=a&since=1e9", kNow).ok());
  EXPECT_FALSE(ParseHistoryQuery("series=a&until=1735787000.1234567891", kNow).ok());
  EXPECT_THAT(ParseHistoryQuery("series=a&step=0s", kNow).status().message(),
              HasSubstr("from 1ms to 24h"));
  EXPECT_THAT(ParseHistoryQuery("series=a&step=-1s", kNow).status().message(),
              HasSubstr("from 1ms to 24h"));
  EXPECT_FALSE(ParseHistoryQuery("series=a&step=inf", kNow).ok());
  EXPECT_FALSE(ParseHistoryQuery("series=a&step=25h", kNow).ok());
  EXPECT_THAT(ParseHistoryQuery("series=a&since=1735787045", kNow).status().message(),
              HasSubstr("is not before until"));
  // One hour in 100 ms steps is 36000 points.
  EXPECT_THAT(ParseHistoryQuery("series=a&step=100ms", kNow).status().message(),
              HasSubstr("36000 steps"));
}

}  // namespace
}  // namespace nictune::http
