// SPDX-License-Identifier: Apache-2.0
// What the binaries print a person fits 80 columns off a terminal: the CLI's help and each
// command's, nictuned's --help, and the CLI's errors, wrapped on stderr as they are written.
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "agent/cli/line_wrapping_buffer.h"
#include "agent/cli/usage_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"
#include "tests/support/wrapped_text.h"

namespace nictune::cli {
namespace {

using ::testing::HasSubstr;

using testing_support::WidestLine;

TEST(CliTextWidthTest, TheHelpAndEachCommandsFitEightyColumns) {
  EXPECT_LE(WidestLine(UsageText()), 80u) << UsageText();
  for (absl::string_view name : absl::StrSplit(CommandNames(), ", ")) {
    const std::optional<std::string> text = CommandUsageText(name);
    ASSERT_TRUE(text.has_value()) << name;
    EXPECT_LE(WidestLine(*text), 80u) << *text << name;
  }
}

TEST(CliTextWidthTest, AWrappedLineKeepsEveryWordAndEndsWhereItEnded) {
  std::ostringstream out;
  {
    LineWrappingBuffer buffer(out, 40);
    std::ostream err(&buffer);
    err << "nictune: cannot reach the agent: unix socket /run/nictune/nictune.sock: connect: "
           "No such file or directory (errno 2)\n"
        << "short\n"
        << "unfinished";
  }
  EXPECT_LE(WidestLine(out.str()), 40u) << out.str();
  std::string joined = out.str();
  std::erase(joined, '\n');
  std::erase(joined, ' ');
  EXPECT_EQ(joined,
            "nictune:cannotreachtheagent:unixsocket/run/nictune/nictune.sock:connect:"
            "Nosuchfileordirectory(errno2)shortunfinished");
  EXPECT_THAT(out.str(), HasSubstr("\nshort\n"));
}

TEST(CliTextWidthTest, TheBinariesHelpAndTheCliErrorsFitEightyColumnsOffATerminal) {
  const std::string bin = testing_support::BinaryDir() + "/agent/";
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{bin + "nictuned", "--help"},
        std::vector<std::string>{bin + "nictune", "help"},
        std::vector<std::string>{bin + "nictune", "--socket=/nonexistent/nictune-width-test.sock",
                                 "status"},
        std::vector<std::string>{bin + "nictune", "help", "no-such-command"}}) {
    absl::StatusOr<testing_support::ProgramOutput> run = testing_support::RunProgram(argv);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_FALSE(run->out.empty() && run->err.empty()) << argv[1];
    EXPECT_LE(WidestLine(run->out), 80u) << run->out << argv[1];
    EXPECT_LE(WidestLine(run->err), 80u) << run->err << argv[1];
  }
}

}  // namespace
}  // namespace nictune::cli
