// SPDX-License-Identifier: Apache-2.0
// The CLI's HTTP/1.1 response parser against what the writer writes and what a server may send.
#include "agent/http/http_message.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Header = std::pair<std::string, std::string>;

TEST(HttpMessage, AWrittenResponseReadsBackTheSame) {
  Response response{.status = 405, .body = "{\"error\":\"x\"}"};
  response.headers.emplace_back("allow", "GET");
  absl::StatusOr<Response> parsed = ParseResponse(SerializeResponse(response, true));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->status, 405);
  EXPECT_EQ(parsed->content_type, "application/json");
  EXPECT_EQ(parsed->body, response.body);
  EXPECT_THAT(parsed->headers, ElementsAre(Header("allow", "GET")));
}

TEST(HttpMessage, WritingAParsedResponseAgainDoesNotRepeatTheFramingHeaders) {
  absl::StatusOr<Response> first = ParseResponse(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
      "Cache-Control: no-store\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n"
      "Retry-After: 5\r\n\r\nok");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(first->headers, ElementsAre(Header("retry-after", "5")));

  absl::StatusOr<Response> second = ParseResponse(SerializeResponse(*first, true));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->headers, first->headers);
  EXPECT_EQ(second->body, "ok");
}

// Found by the fuzzer: every header line the parser accepts, written again with the framing
// headers in front, went over the limit; the round trip holds for all that fit.
TEST(HttpMessage, ExtraHeadersThatLeaveRoomForTheFramingOnesRoundTrip) {
  std::string text = "HTTP/1.1 221 Unknown\r\n";
  for (size_t i = 0; i < kMaxHeaderLines - kResponseFramingHeaderLines; ++i) {
    absl::StrAppend(&text, "X-", i, ": ", i, "\r\n");
  }
  text += "\r\n";
  absl::StatusOr<Response> first = ParseResponse(text);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<Response> second = ParseResponse(SerializeResponse(*first, true));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->headers, first->headers);
}

TEST(HttpMessage, ABodyShorterThanItsLengthIsAnError) {
  absl::StatusOr<Response> truncated = ParseResponse(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nshort");
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.status().message(), HasSubstr("says 10 bytes, got 5"));
}

TEST(HttpMessage, TwoLengthsThatDisagreeAreAnError) {
  absl::StatusOr<Response> parsed =
      ParseResponse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("says both 2 and 3 bytes"));

  absl::StatusOr<Response> repeated =
      ParseResponse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok");
  ASSERT_TRUE(repeated.ok()) << repeated.status();
  EXPECT_EQ(repeated->body, "ok");
}

}  // namespace
}  // namespace nictune::http
