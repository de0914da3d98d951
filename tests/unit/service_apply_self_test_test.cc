// SPDX-License-Identifier: Apache-2.0
// Apply mode's start-up self-test on proc trees the test builds: what it accepts, and that each
// refusal says why in words an operator can act on.
#include <filesystem>
#include <fstream>
#include <string>

#include "agent/service/apply_self_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace nictune::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_support::TempDir;

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(ApplySelfTest, AWritableBudgetSysctlPasses) {
  absl::StatusOr<TempDir> proc = TempDir::Create("nictune-self-test-");
  ASSERT_TRUE(proc.ok()) << proc.status();
  WriteFile(std::filesystem::path(proc->path()) / "sys/net/core/netdev_budget", "300\n");
  EXPECT_TRUE(CheckSysctlsWritable(proc->path()).ok());
}

TEST(ApplySelfTest, ANamespaceWithoutNetCoreIsNamedAsNotTheHosts) {
  // A container's /proc/sys/net: ipv4 is per namespace, core's budget sysctls are not.
  absl::StatusOr<TempDir> proc = TempDir::Create("nictune-self-test-");
  ASSERT_TRUE(proc.ok()) << proc.status();
  WriteFile(std::filesystem::path(proc->path()) / "sys/net/ipv4/udp_mem", "1 2 3\n");
  const absl::Status status = CheckSysctlsWritable(proc->path());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr(proc->path() + "/sys/net/core/netdev_budget"), HasSubstr("errno 2"),
                    HasSubstr("not in the host's (initial) network namespace"),
                    HasSubstr("refusing to start")));
}

TEST(ApplySelfTest, AProcRootWithoutSysNetIsQuestioned) {
  absl::StatusOr<TempDir> proc = TempDir::Create("nictune-self-test-");
  ASSERT_TRUE(proc.ok()) << proc.status();
  const absl::Status status = CheckSysctlsWritable(proc->path());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("has no sys/net either"), HasSubstr("is --proc_root a proc mount?")));
}

}  // namespace
}  // namespace nictune::service
