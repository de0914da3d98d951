// SPDX-License-Identifier: Apache-2.0
// The shipped Prometheus files pass Prometheus' own tools: the rules load (promtool check rules),
// every alert behaves as its unit tests say, firing and quiet (promtool test rules), and the
// scrape config with its rule file loads (promtool check config).
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace nictune {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

std::string PrometheusFile(const std::string& name) {
  return absl::StrCat(testing_support::SourceDir(), "/deploy/prometheus/", name);
}

testing_support::ProgramOutput Promtool(const std::vector<std::string>& args) {
  EXPECT_EQ(access(kPromtool, X_OK), 0) << kPromtool << " missing: apt-get install prometheus";
  std::vector<std::string> argv{kPromtool};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<testing_support::ProgramOutput> run = testing_support::RunProgram(argv);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : testing_support::ProgramOutput{};
}

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> text = procfs::ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(DeployRules, RulesLoad) {
  const testing_support::ProgramOutput check =
      Promtool({"check", "rules", PrometheusFile("nictune_rules.yml")});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, ::testing::HasSubstr("SUCCESS"));
}

TEST(DeployRules, EveryAlertPassesItsFiringAndQuietCases) {
  const testing_support::ProgramOutput test =
      Promtool({"test", "rules", PrometheusFile("nictune_rules_test.yml")});
  EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
  EXPECT_THAT(test.out, ::testing::HasSubstr("SUCCESS"));
}

// promtool passes a test file that leaves an alert out; this test does not.
TEST(DeployRules, EveryAlertHasAFiringAndAQuietCase) {
  const std::string tests = Read(PrometheusFile("nictune_rules_test.yml"));
  std::vector<std::string> alerts;
  for (absl::string_view line : absl::StrSplit(Read(PrometheusFile("nictune_rules.yml")), '\n')) {
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "- alert: ")) alerts.emplace_back(line);
  }
  ASSERT_GE(alerts.size(), 5u);
  for (const std::string& alert : alerts) {
    const std::string case_start = absl::StrCat("alertname: ", alert, "\n");
    size_t quiet = 0;
    size_t firing = 0;
    for (size_t at = tests.find(case_start); at != std::string::npos;
         at = tests.find(case_start, at + 1)) {
      const size_t line_end = tests.find('\n', at + case_start.size());
      const absl::string_view next = absl::StripAsciiWhitespace(absl::string_view(tests).substr(
          at + case_start.size(), line_end - at - case_start.size()));
      (next == "exp_alerts: []" ? quiet : firing) += 1;
    }
    EXPECT_GE(quiet, 1u) << alert << ": no case where it stays quiet";
    EXPECT_GE(firing, 1u) << alert << ": no case where it fires";
  }
}

TEST(DeployRules, ScrapeConfigLoadsWithItsRules) {
  const testing_support::ProgramOutput check =
      Promtool({"check", "config", PrometheusFile("prometheus.yml")});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, ::testing::HasSubstr("SUCCESS: 1 rule files found"));
}

}  // namespace
}  // namespace nictune
