// SPDX-License-Identifier: Apache-2.0
// tuned, bpftune and irqbalance are found by their process names under a proc root, in pid
// order, with what of nictune's they touch; other processes, and entries that are not processes
// or vanish, are not.
#include "agent/observe/other_tuners.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace nictune::observe {
namespace {

void Process(const std::string& root, const std::string& pid, const std::string& comm) {
  std::filesystem::create_directories(root + "/" + pid);
  std::ofstream(root + "/" + pid + "/comm") << comm << "\n";
}

TEST(OtherTunersTest, TheKnownTunersAreFoundInPidOrder) {
  absl::StatusOr<testing_support::TempDir> root = testing_support::TempDir::Create("proc");
  ASSERT_TRUE(root.ok()) << root.status();
  const std::string& proc = root->path();
  Process(proc, "812", "irqbalance");
  Process(proc, "77", "tuned");
  Process(proc, "1", "systemd");
  std::filesystem::create_directories(proc + "/1");
  Process(proc, "900", "bpftune-helper");  // not bpftune itself
  Process(proc, "self", "tuned");           // not a pid
  std::filesystem::create_directories(proc + "/950");  // went away: no comm left
  absl::StatusOr<std::vector<OtherTuner>> looked = FindOtherTuners(proc);
  ASSERT_TRUE(looked.ok()) << looked.status();
  const std::vector<OtherTuner>& found = *looked;
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "tuned");
  EXPECT_EQ(found[0].pid, 77);
  EXPECT_THAT(found[0].overlap, ::testing::HasSubstr("net.core sysctls"));
  EXPECT_EQ(found[1].name, "irqbalance");
  EXPECT_EQ(found[1].pid, 812);
  EXPECT_THAT(found[1].overlap, ::testing::HasSubstr("moves queue interrupts between CPUs"));
}

TEST(OtherTunersTest, AProcThatHidesOtherServicesIsSaidNotTakenForNone) {
  absl::StatusOr<testing_support::TempDir> root = testing_support::TempDir::Create("proc");
  ASSERT_TRUE(root.ok()) << root.status();
  Process(root->path(), "4242", "nictuned");  // ProtectProc=invisible: only ourselves
  absl::StatusOr<std::vector<OtherTuner>> looked = FindOtherTuners(root->path());
  EXPECT_EQ(looked.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(looked.status().message(), ::testing::HasSubstr("ProtectProc=invisible"));
  EXPECT_FALSE(FindOtherTuners("/nonexistent/proc").ok());
}

}  // namespace
}  // namespace nictune::observe
