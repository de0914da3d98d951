// SPDX-License-Identifier: Apache-2.0
// The shipped systemd unit and flagfile work with the built daemon: systemd-analyze verify accepts
// the unit without a remark, its offline security exposure is no worse than that of
// node_exporter's Debian unit, nictuned parses the default flagfile, and its --help lists its
// flags and exits 0.
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

constexpr const char* kNodeExporterUnit = "/lib/systemd/system/prometheus-node-exporter.service";

std::string RepoFile(const std::string& relative) {
  return absl::StrCat(testing_support::SourceDir(), "/", relative);
}

std::string BuiltNictuned() { return absl::StrCat(testing_support::BinaryDir(), "/agent/nictuned"); }

testing_support::ProgramOutput RunOrFail(const std::vector<std::string>& argv) {
  absl::StatusOr<testing_support::ProgramOutput> run = testing_support::RunProgram(argv);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : testing_support::ProgramOutput{};
}

// "Overall exposure level for X.service: 2.3 OK" -> 2.3
double Exposure(const std::string& unit_path) {
  const testing_support::ProgramOutput out =
      RunOrFail({"systemd-analyze", "security", "--offline=true", "--no-pager", unit_path});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  const std::string marker = ".service: ";
  const size_t overall = out.out.find("Overall exposure level for ");
  const size_t at = out.out.find(marker, overall);
  double level = 100;
  EXPECT_NE(overall, std::string::npos) << out.out << out.err;
  if (overall == std::string::npos || at == std::string::npos) return level;
  const size_t start = at + marker.size();
  const std::string number = out.out.substr(start, out.out.find(' ', start) - start);
  EXPECT_TRUE(absl::SimpleAtod(number, &level)) << "exposure '" << number << "'";
  return level;
}

TEST(DeployUnit, SystemdVerifyAcceptsItWithTheBuiltBinary) {
  ASSERT_EQ(access(BuiltNictuned().c_str(), X_OK), 0) << BuiltNictuned() << ": build nictuned";
  absl::StatusOr<std::string> unit = procfs::ReadFile(RepoFile("deploy/nictuned.service"));
  ASSERT_TRUE(unit.ok()) << unit.status();
  ASSERT_THAT(*unit, ::testing::HasSubstr("ExecStart=/usr/sbin/nictuned "));
  // verify insists that ExecStart exists; point it at the build instead of an installed copy.
  absl::StatusOr<testing_support::TempDir> dir =
      testing_support::TempDir::Create("nictune_deploy_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string copy = dir->path() + "/nictuned.service";
  std::ofstream(copy) << absl::StrReplaceAll(*unit, {{"/usr/sbin/nictuned", BuiltNictuned()}});
  const testing_support::ProgramOutput verify = RunOrFail({"systemd-analyze", "verify", copy});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  // Unknown or misspelt directives are only warnings; the unit must have none.
  EXPECT_EQ(verify.out + verify.err, "");
}

TEST(DeployUnit, ExposureIsNoWorseThanNodeExportersUnit) {
  ASSERT_EQ(access(kNodeExporterUnit, R_OK), 0)
      << kNodeExporterUnit << " missing: apt-get install prometheus-node-exporter";
  const double ours = Exposure(RepoFile("deploy/nictuned.service"));
  const double node_exporter = Exposure(kNodeExporterUnit);
  EXPECT_LE(ours, node_exporter);
  // docs/deployment.md reports 2.3; a hardening line lost on the way shows up here first.
  EXPECT_LE(ours, 2.5);
}

TEST(DeployUnit, BuiltNictunedParsesTheDefaultFlagfile) {
  ASSERT_EQ(access(BuiltNictuned().c_str(), X_OK), 0) << BuiltNictuned() << ": build nictuned";
  // --version is handled after every flag is parsed, so an unknown flag in the file fails it.
  const testing_support::ProgramOutput run =
      RunOrFail({BuiltNictuned(), absl::StrCat("--flagfile=", RepoFile("deploy/nictuned.flags")),
                 "--version"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_FALSE(run.out.empty());
}

TEST(DeployUnit, BuiltNictunedsHelpListsItsFlagsAndExitsZero) {
  ASSERT_EQ(access(BuiltNictuned().c_str(), X_OK), 0) << BuiltNictuned() << ": build nictuned";
  const testing_support::ProgramOutput run = RunOrFail({BuiltNictuned(), "--help"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, ::testing::StartsWith("nictuned: measures NIC interrupt mitigation"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("\n    --probe_budget ("));
  EXPECT_THAT(run.out, ::testing::HasSubstr("\n    --check ("));
}

TEST(DeployUnit, BuiltNictunedRefusesAFlagfileWithAnUnknownFlag) {
  ASSERT_EQ(access(BuiltNictuned().c_str(), X_OK), 0) << BuiltNictuned() << ": build nictuned";
  absl::StatusOr<testing_support::TempDir> dir =
      testing_support::TempDir::Create("nictune_deploy_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string flags = dir->path() + "/bad.flags";
  std::ofstream(flags) << "--interval=1s\n--no_such_nictune_flag=1\n";
  const testing_support::ProgramOutput run =
      RunOrFail({BuiltNictuned(), absl::StrCat("--flagfile=", flags), "--version"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err, ::testing::HasSubstr("no_such_nictune_flag"));
}

}  // namespace
}  // namespace nictune
