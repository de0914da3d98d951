// SPDX-License-Identifier: Apache-2.0
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/schedstat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace nictune::procfs {
namespace {

using ::testing::HasSubstr;

constexpr char kPath[] = "/proc/812/schedstat";

TEST(ParseSchedstatRunNs, TheFirstOfThreeNumbersIsTheTimeOnACpu) {
  absl::StatusOr<uint64_t> run_ns = ParseSchedstatRunNs("225690757 32483085 875\n", kPath);
  ASSERT_TRUE(run_ns.ok()) << run_ns.status();
  EXPECT_EQ(*run_ns, 225690757u);
  // Past 2^32 ns (4.3 s): a poller that ran for days.
  run_ns = ParseSchedstatRunNs("18446744073709551615 0 1", kPath);
  ASSERT_TRUE(run_ns.ok()) << run_ns.status();
  EXPECT_EQ(*run_ns, 18446744073709551615u);
}

TEST(ParseSchedstatRunNs, ADamagedLineIsAnErrorNamingTheFileAndWhatWasWrong) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"", "empty"}, Case{"225690757 32483085\n", "got 2"},
                        Case{"225690757 32483085 875 9\n", "got 4"},
                        Case{"-1 32483085 875\n", "\"-1\" is not an unsigned integer"},
                        Case{"22569x757 1 2\n", "column 1"},
                        Case{"18446744073709551616 0 1\n", "is not an unsigned integer"}}) {
    absl::StatusOr<uint64_t> run_ns = ParseSchedstatRunNs(c.text, kPath);
    ASSERT_FALSE(run_ns.ok()) << c.text;
    EXPECT_EQ(run_ns.status().code(), absl::StatusCode::kInvalidArgument) << run_ns.status();
    EXPECT_THAT(run_ns.status().message(), HasSubstr(kPath));
    EXPECT_THAT(run_ns.status().message(), HasSubstr(c.says)) << c.text;
  }
}

TEST(ReadTaskRunNs, ReadsUnderTheProcRootAndSaysNotFoundForATaskThatIsGone) {
  absl::StatusOr<testing_support::TempDir> root =
      testing_support::TempDir::Create("nictune_schedstat_");
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_EQ(::mkdir(absl::StrCat(root->path(), "/812").c_str(), 0755), 0);
  std::ofstream(absl::StrCat(root->path(), "/812/schedstat")) << "4000000 10 3\n";
  absl::StatusOr<uint64_t> run_ns = ReadTaskRunNs(root->path(), 812);
  ASSERT_TRUE(run_ns.ok()) << run_ns.status();
  EXPECT_EQ(*run_ns, 4000000u);
  absl::StatusOr<uint64_t> gone = ReadTaskRunNs(root->path(), 813);
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound) << gone.status();
  EXPECT_THAT(gone.status().message(), HasSubstr("/813/schedstat"));
}

}  // namespace
}  // namespace nictune::procfs
