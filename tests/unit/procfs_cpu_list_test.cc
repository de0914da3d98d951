// SPDX-License-Identifier: Apache-2.0
#include <unistd.h>

#include <string>

#include "agent/procfs/cpu_list.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::procfs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<int> ParsedOrEmpty(std::string_view text) {
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(text, "/test/list");
  EXPECT_TRUE(cpus.ok()) << cpus.status();
  return cpus.value_or(std::vector<int>{});
}

TEST(ParseCpuList, RangesAndSinglesInKernelOrder) {
  EXPECT_THAT(ParsedOrEmpty("0-3,8,10-11"), ElementsAre(0, 1, 2, 3, 8, 10, 11));
  EXPECT_THAT(ParsedOrEmpty("5"), ElementsAre(5));
  EXPECT_THAT(ParsedOrEmpty("0-0"), ElementsAre(0));
}

TEST(ParseCpuList, ToleratesWhitespaceAndTheTrailingNewline) {
  EXPECT_THAT(ParsedOrEmpty("0-1\n"), ElementsAre(0, 1));
  EXPECT_THAT(ParsedOrEmpty("  2 , 4 - 5 \n"), ElementsAre(2, 4, 5));
}

TEST(ParseCpuList, SortsAndRemovesDuplicates) {
  EXPECT_THAT(ParsedOrEmpty("8,0-2,1"), ElementsAre(0, 1, 2, 8));
}

TEST(ParseCpuList, RejectsWhatTheKernelNeverPrints) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "/test/list line 1: empty CPU list"},
      {" \n", "/test/list line 1: empty CPU list"},
      {"3-1", "/test/list line 1: range \"3-1\" is descending"},
      {"a", "/test/list line 1: \"a\" is not a CPU number or range"},
      {"0-3,", "/test/list line 1: \"\" is not a CPU number"},
      {"1,,2", "/test/list line 1: \"\" is not a CPU number"},
      {"-1", "\"-1\" is not a CPU number"},
      {"0-", "\"0-\" is not a CPU number"},
      {"0-4000000000", "\"0-4000000000\" is not a CPU number or range (0-65535)"},
      {"1-2-3", "\"1-2-3\" is not a CPU number"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(c.text, "/test/list");
    ASSERT_FALSE(cpus.ok()) << c.text;
    EXPECT_THAT(std::string(cpus.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(ParseCpuList, LiveOnlineListMatchesSysconf) {
  const std::string path = "/sys/devices/system/cpu/online";
  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(*text, path);
  ASSERT_TRUE(cpus.ok()) << cpus.status();
  EXPECT_EQ(static_cast<long>(cpus->size()), sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace
}  // namespace nictune::procfs
