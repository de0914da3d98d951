// SPDX-License-Identifier: Apache-2.0
// nictuned's --help: which arguments ask for it, and the text in abseil's layout, which the
// manual page writer and the bash completion read.
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_split.h"
#include "agent/service/help_request.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(int, help_test_window, 5,
          "A flag of this test's own, with a help text long enough that it has to wrap onto a "
          "second line at eighty columns");
ABSL_FLAG(std::string, help_test_name, "eth0", "A device");

namespace nictune::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::optional<std::string> Ask(std::vector<std::string> args) {
  args.insert(args.begin(), "nictuned");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return HelpRequest(static_cast<int>(argv.size()), argv.data());
}

TEST(HelpRequestTest, HelpIsAskedByItsUsualSpellingsBeforeTheEndOfFlags) {
  EXPECT_EQ(Ask({"--help"}), "");
  EXPECT_EQ(Ask({"--once", "-help"}), "");
  EXPECT_EQ(Ask({"-h"}), "");
  EXPECT_EQ(Ask({"--help=probe"}), "probe");
  EXPECT_EQ(Ask({"--once", "--json"}), std::nullopt);
  EXPECT_EQ(Ask({"--", "--help"}), std::nullopt);
  EXPECT_EQ(Ask({"--helpfull"}), std::nullopt);  // abseil's, with its own flags
}

constexpr char kThisFile[] = "tests/unit/service_help_request_test.cc";

TEST(HelpRequestTest, TextListsThisFilesFlagsInAbseilsLayout) {
  const std::string text = HelpText("nictuned", "measures things.", kThisFile, "");
  EXPECT_EQ(text.substr(0, text.find('\n')), "nictuned: measures things.");
  EXPECT_THAT(text, HasSubstr(std::string("\n  Flags from ") + kThisFile + ":\n"));
  EXPECT_THAT(text, HasSubstr("\n    --help_test_name (A device); default: \"eth0\";\n\n"));
  // Wrapped at 80 columns, the continuation indented six spaces, sorted by name.
  EXPECT_THAT(
      text,
      HasSubstr(
          "\n    --help_test_window (A flag of this test's own, with a help text long enough\n"
          "      that it has to wrap onto a second line at eighty columns); default: 5;\n"));
  EXPECT_LT(text.find("--help_test_name"), text.find("--help_test_window"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) EXPECT_LE(line.size(), 80u) << line;
  EXPECT_THAT(text, Not(HasSubstr("--flagfile (")));  // abseil's own flags are --helpfull's
  EXPECT_THAT(text, HasSubstr("\n--helpfull for abseil's own flags too"));
}

TEST(HelpRequestTest, ASubstringKeepsTheFlagsWhoseNameOrHelpHoldsIt) {
  const std::string by_help = HelpText("nictuned", "u", kThisFile, "device");
  EXPECT_THAT(by_help, HasSubstr("--help_test_name"));
  EXPECT_THAT(by_help, Not(HasSubstr("--help_test_window")));
  EXPECT_THAT(HelpText("nictuned", "u", kThisFile, "window"), HasSubstr("--help_test_window"));
  EXPECT_THAT(HelpText("nictuned", "u", kThisFile, "zzz"),
              HasSubstr("No flag's name or help holds \"zzz\""));
}

}  // namespace
}  // namespace nictune::service
