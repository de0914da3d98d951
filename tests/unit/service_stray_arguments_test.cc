// SPDX-License-Identifier: Apache-2.0
// nictuned's stray arguments: a word where a flag belongs, and a switch's value given spaced.
#include <string>
#include <vector>

#include "agent/service/stray_arguments.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::service {
namespace {

using ::testing::HasSubstr;

// What abseil's ParseCommandLine hands back: the program's name, then what was not a flag.
std::vector<char*> Positional(std::vector<std::string>& words) {
  std::vector<char*> out;
  for (std::string& w : words) out.push_back(w.data());
  return out;
}

TEST(StrayArgumentsTest, FlagsAloneAreNoError) {
  std::vector<std::string> left = {"nictuned"};
  EXPECT_EQ(StrayArgumentError(Positional(left), {"nictuned", "--check", "--interval", "5s"}),
            std::nullopt);
}

TEST(StrayArgumentsTest, AWordWhereAFlagBelongsIsNamedWithTheWayToHelp) {
  std::vector<std::string> left = {"nictuned", "version"};
  const std::optional<std::string> error =
      StrayArgumentError(Positional(left), {"nictuned", "version"});
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("unexpected argument \"version\": flags only"));
  EXPECT_THAT(*error, HasSubstr("see nictuned --help"));
  EXPECT_LE(error->size(), 80u) << *error;
}

TEST(StrayArgumentsTest, ASwitchsSpacedValueIsShownJoined) {
  std::vector<std::string> left = {"nictuned", "false"};
  const std::optional<std::string> error =
      StrayArgumentError(Positional(left), {"nictuned", "--state_dir=/tmp/s", "--bpf", "false"});
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("\"false\": a switch's value is joined, --bpf=false"));
  EXPECT_LE(error->size(), 80u) << *error;
}

// A word after a flag that already has its value is a word of its own.
TEST(StrayArgumentsTest, AWordAfterAJoinedFlagIsNotTakenForItsValue) {
  std::vector<std::string> left = {"nictuned", "false"};
  const std::optional<std::string> error =
      StrayArgumentError(Positional(left), {"nictuned", "--bpf=true", "false"});
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("unexpected argument \"false\": flags only"));
}

}  // namespace
}  // namespace nictune::service
