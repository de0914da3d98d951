// SPDX-License-Identifier: Apache-2.0
// The rate-limited log: one line per problem per period, the repeats counted into the next line,
// problems independent of each other, and quiet problems forgotten so the map stays bounded.
#include "agent/rate_limited_log.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST(RateLimitedLogTest, AProblemIsLoggedOncePerPeriodWithTheRepeatsCounted) {
  RateLimitedLog log(absl::Minutes(1));
  ::testing::internal::CaptureStderr();
  // Every second for two and a half minutes, as a knob unreadable every window would be.
  int written = 0;
  for (int s = 0; s < 150; ++s) {
    written += log.Log(LogLevel::kWarning, "unreadable rx_usecs emu0", "rx_usecs unreadable",
                       kT0 + absl::Seconds(s));
  }
  const std::vector<std::string> lines = Lines(::testing::internal::GetCapturedStderr());
  EXPECT_EQ(written, 3);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "<4>rx_usecs unreadable");
  EXPECT_THAT(lines[1], HasSubstr("(59 more time(s) since the last report"));
  EXPECT_THAT(lines[2], HasSubstr("(59 more time(s) since the last report"));
}

TEST(RateLimitedLogTest, ProblemsAreLimitedEachOnItsOwn) {
  RateLimitedLog log(absl::Minutes(1));
  ::testing::internal::CaptureStderr();
  for (int s = 0; s < 10; ++s) {
    log.Log(LogLevel::kWarning, "a", "a failed", kT0 + absl::Seconds(s));
    log.Log(LogLevel::kError, "b", "b failed", kT0 + absl::Seconds(s));
  }
  EXPECT_THAT(Lines(::testing::internal::GetCapturedStderr()),
              ElementsAre("<4>a failed", "<3>b failed"));
}

TEST(RateLimitedLogTest, AClearedProblemIsLoggedAtOnceWhenItComesBack) {
  RateLimitedLog log(absl::Minutes(1));
  ::testing::internal::CaptureStderr();
  log.Log(LogLevel::kWarning, "a", "a failed", kT0);
  log.Log(LogLevel::kWarning, "a", "a failed", kT0 + absl::Seconds(1));
  EXPECT_EQ(log.Clear("a"), 1u);
  EXPECT_EQ(log.Clear("a"), std::nullopt);
  log.Log(LogLevel::kWarning, "a", "a failed again", kT0 + absl::Seconds(2));
  EXPECT_THAT(Lines(::testing::internal::GetCapturedStderr()),
              ElementsAre("<4>a failed", "<4>a failed again"));
}

TEST(RateLimitedLogTest, AProblemThatKeepsRecurringKeepsItsCountThroughASweep) {
  RateLimitedLog log(absl::Minutes(1));
  ::testing::internal::CaptureStderr();
  log.Log(LogLevel::kWarning, "knob", "knob unreadable", kT0);
  // Seen every second for 70 s, while 140 other problems come once each and fill the map past
  // its sweep: the knob's last line is over a period old, but it was seen a second ago.
  for (int s = 1; s <= 70; ++s) {
    log.Log(LogLevel::kWarning, absl::StrCat("device ", s), "gone", kT0 + absl::Seconds(s));
    log.Log(LogLevel::kWarning, absl::StrCat("device ", s + 100), "gone", kT0 + absl::Seconds(s));
    if (s < 70) log.Log(LogLevel::kWarning, "knob", "knob unreadable", kT0 + absl::Seconds(s));
  }
  // The first line of the knob since kT0 (it was due at 60 s) carries every repeat.
  std::vector<std::string> knob_lines;
  for (const std::string& line : Lines(::testing::internal::GetCapturedStderr())) {
    if (absl::StrContains(line, "knob")) knob_lines.push_back(line);
  }
  ASSERT_EQ(knob_lines.size(), 2u);
  EXPECT_THAT(knob_lines[1], HasSubstr("(59 more time(s) since the last report"));
}

TEST(RateLimitedLogTest, ProblemsQuietForAPeriodAreForgotten) {
  RateLimitedLog log(absl::Minutes(1));
  ::testing::internal::CaptureStderr();
  // A thousand devices that each failed once, as names come and go.
  for (int i = 0; i < 1000; ++i) {
    log.Log(LogLevel::kWarning, absl::StrCat("device ", i), "gone", kT0 + absl::Seconds(i));
  }
  ::testing::internal::GetCapturedStderr();
  EXPECT_LE(log.tracked(), 200u);
}

}  // namespace
}  // namespace nictune::agent
