// SPDX-License-Identifier: Apache-2.0
// The width the CLI's views fit: $COLUMNS when it holds a width, the terminal's, else 80 (a pipe,
// a file).
#include "agent/cli/terminal_width.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace nictune::cli {
namespace {

TEST(TerminalWidthTest, APipeGetsEightyColumnsUnlessColumnsSaysOtherwise) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(TerminalWidth(fds[1], nullptr), 80u);
  EXPECT_EQ(TerminalWidth(fds[1], "132"), 132u);
  // Not a width: ignored.
  EXPECT_EQ(TerminalWidth(fds[1], "wide"), kOffTerminalWidth);
  EXPECT_EQ(TerminalWidth(fds[1], "5"), kOffTerminalWidth);
  EXPECT_EQ(TerminalWidth(fds[1], ""), 80u);
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace nictune::cli
