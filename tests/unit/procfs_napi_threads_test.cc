// SPDX-License-Identifier: Apache-2.0
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/procfs/napi_threads.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace nictune::procfs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPath[] = "/proc/2/task/2/children";

TEST(ParseChildPids, EachPidFollowedByASpace) {
  absl::StatusOr<std::vector<uint32_t>> pids = ParseChildPids("3 4 812 ", kPath);
  ASSERT_TRUE(pids.ok()) << pids.status();
  EXPECT_THAT(*pids, ElementsAre(3u, 4u, 812u));
  pids = ParseChildPids("", kPath);  // kthreadd without children
  ASSERT_TRUE(pids.ok()) << pids.status();
  EXPECT_TRUE(pids->empty());
  pids = ParseChildPids("3 4\n", kPath);
  ASSERT_TRUE(pids.ok()) << pids.status();
  EXPECT_THAT(*pids, ElementsAre(3u, 4u));
}

TEST(ParseChildPids, ADamagedListIsAnErrorNamingTheFileAndTheToken) {
  for (const char* text : {"3 x4 ", "3 0 ", "3 4294967296 ", "3 -4 "}) {
    absl::StatusOr<std::vector<uint32_t>> pids = ParseChildPids(text, kPath);
    ASSERT_FALSE(pids.ok()) << text;
    EXPECT_EQ(pids.status().code(), absl::StatusCode::kInvalidArgument) << pids.status();
    EXPECT_THAT(pids.status().message(), HasSubstr(kPath));
    EXPECT_THAT(pids.status().message(), HasSubstr("is not a pid"));
  }
}

void WriteTask(const std::string& root, uint32_t pid, const std::string& comm) {
  ASSERT_EQ(::mkdir(absl::StrCat(root, "/", pid).c_str(), 0755), 0);
  std::ofstream(absl::StrCat(root, "/", pid, "/comm")) << comm << "\n";
}

// The kernel threads named napi/...: not other threads, nor a child that exited between the
// list and its comm; without the children list (no CONFIG_PROC_CHILDREN), NotFound.
TEST(ReadNapiThreadPids, KthreaddsChildrenNamedNapi) {
  absl::StatusOr<testing_support::TempDir> root =
      testing_support::TempDir::Create("nictune_napi_threads_");
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<uint32_t>> none = ReadNapiThreadPids(root->path());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound) << none.status();
  EXPECT_THAT(none.status().message(), HasSubstr("/2/task/2/children"));

  ASSERT_EQ(::mkdir(absl::StrCat(root->path(), "/2").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(absl::StrCat(root->path(), "/2/task").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(absl::StrCat(root->path(), "/2/task/2").c_str(), 0755), 0);
  std::ofstream(absl::StrCat(root->path(), "/2/task/2/children"))
      << "900 31 870 45 77 ";  // 77 exited
  WriteTask(root->path(), 31, "kworker/0:1");
  WriteTask(root->path(), 45, "napi/vethab12cd-");  // cut at 15 bytes
  WriteTask(root->path(), 900, "napi/eth0-8193");
  WriteTask(root->path(), 870, "ksoftirqd/1");
  absl::StatusOr<std::vector<uint32_t>> pollers = ReadNapiThreadPids(root->path());
  ASSERT_TRUE(pollers.ok()) << pollers.status();
  EXPECT_THAT(*pollers, ElementsAre(45u, 900u));
}

}  // namespace
}  // namespace nictune::procfs
