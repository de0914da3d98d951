// SPDX-License-Identifier: Apache-2.0
// Apply mode against the faults an operator meets: the real nictuned tunes an emulated NIC (in
// the host's namespace, whose net.core sysctls the test captures and puts back), and then
//   - a second agent is started on the same state directory: it stops at once, naming the first,
//     and the first agent's change stays exactly as it was;
//   - the agent is SIGKILLed and its history (nictune.db) damaged at several offsets: the restart
//     still restores the journaled original;
//   - the agent is SIGKILLed and its state's disk filled: the restart still restores the original,
//     and `nictune restore` still answers;
//   - the state directory is read-only: apply mode does not start, and says EROFS.
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "driver/emulated/control_protocol.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/apply_agent.h"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/host_sysctls.h"
#include "tests/support/journal_file.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_tmpfs.h"

namespace nictune {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::AgentLog;
using testing_support::BackgroundProgram;
using testing_support::EmulatedHost;
using testing_support::ProgramOutput;

constexpr char kDevice[] = "emu0";
constexpr int64_t kStartRxUsecs = 8192;
const std::string kRxUsecs(driver::emulated::kKeyRxUsecs);

class ApplyFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
    auto captured = testing_support::SysctlRestorer::Capture(testing_support::TunedHostSysctls());
    ASSERT_TRUE(captured.ok()) << captured.status();
    host_sysctls_ = *std::move(captured);
    testing_support::EmulatedHostOptions options = testing_support::SmallSocketNicOptions(
        absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"));
    options.device = kDevice;
    options.max_run = absl::Minutes(3);
    auto host = EmulatedHost::Start(options);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    ASSERT_TRUE(host_->SetKnob(kRxUsecs, kStartRxUsecs).ok());
  }

  absl::StatusOr<BackgroundProgram> StartAgent(const std::string& state_dir) {
    return testing_support::StartApplyAgent(*host_, {.state_dir = state_dir});
  }

  // Waits (up to 5 windows) for the agent's first write of rx_usecs and returns the value.
  int64_t WaitForWrite(const BackgroundProgram& agent) {
    const absl::Time until = absl::Now() + absl::Seconds(20);
    while (absl::Now() < until) {
      absl::StatusOr<int64_t> value = host_->Knob(kRxUsecs);
      if (value.ok() && *value != kStartRxUsecs) return *value;
      absl::SleepFor(absl::Milliseconds(50));
    }
    ADD_FAILURE() << "the agent did not write rx_usecs; its log:\n" << AgentLog(agent);
    return kStartRxUsecs;
  }

  // Starts an agent on state_dir, waits for its write, and SIGKILLs it: the journal owes the NIC.
  void CrashAfterAWrite(const std::string& state_dir) {
    absl::StatusOr<BackgroundProgram> agent = StartAgent(state_dir);
    ASSERT_TRUE(agent.ok()) << agent.status();
    ASSERT_NE(WaitForWrite(*agent), kStartRxUsecs);
    ASSERT_TRUE(agent->Signal(SIGKILL).ok());
    ASSERT_TRUE(agent->Wait(absl::Seconds(10)).ok());
  }

  // Restarts on state_dir: the journal is resolved at start, then SIGTERM; returns the line.
  std::string RestartAndResolve(const std::string& state_dir) {
    absl::StatusOr<BackgroundProgram> agent = StartAgent(state_dir);
    EXPECT_TRUE(agent.ok()) << agent.status();
    if (!agent.ok()) return "";
    absl::StatusOr<std::string> resolved =
        testing_support::WaitForJournalResolution(*agent, absl::Seconds(30));
    EXPECT_TRUE(resolved.ok()) << resolved.status() << "\n" << AgentLog(*agent);
    absl::StatusOr<int64_t> now = host_->Knob(kRxUsecs);
    EXPECT_TRUE(now.ok()) << now.status();
    EXPECT_EQ(now.value_or(-1), kStartRxUsecs) << "the original was not restored:\n"
                                               << AgentLog(*agent);
    EXPECT_TRUE(agent->Signal(SIGTERM).ok());
    absl::StatusOr<ProgramOutput> done = agent->Wait(absl::Seconds(15));
    EXPECT_TRUE(done.ok()) << done.status();
    return resolved.value_or("");
  }

  std::unique_ptr<testing_support::SysctlRestorer> host_sysctls_;
  std::unique_ptr<EmulatedHost> host_;
};

TEST_F(ApplyFaultsTest, ASecondAgentOnTheStateDirectoryChangesNothing) {
  auto dir = testing_support::TempDir::Create("nictune_second_agent_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<BackgroundProgram> first = StartAgent(dir->path());
  ASSERT_TRUE(first.ok()) << first.status();
  const int64_t written = WaitForWrite(*first);
  ASSERT_NE(written, kStartRxUsecs);

  // The same command line, as a second unit or a mistaken manual start would run it.
  absl::StatusOr<ProgramOutput> second = testing_support::RunProgram(
      testing_support::ApplyAgentArgv(*host_, {.state_dir = dir->path()}));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->exit_code, 1) << second->out;
  EXPECT_THAT(second->out, HasSubstr("is in use"));
  EXPECT_THAT(second->out, HasSubstr("held by PID"));
  EXPECT_THAT(second->out, Not(HasSubstr("change journal resolved")));
  // The first agent's change is untouched, and still owed to the NIC.
  absl::StatusOr<int64_t> now = host_->Knob(kRxUsecs);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_NE(*now, kStartRxUsecs) << "the second agent restored the first one's change";
  auto journal = testing_support::ReadJournalFile(dir->path() + "/journal.db");
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_FALSE(journal->rows.empty());
  std::cout << "first agent wrote rx_usecs " << written << "; the second said: " << second->out;

  ASSERT_TRUE(first->Signal(SIGTERM).ok());
  absl::StatusOr<ProgramOutput> done = first->Wait(absl::Seconds(15));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->exit_code, 0) << done->out;
  EXPECT_EQ(host_->Knob(kRxUsecs).value_or(-1), kStartRxUsecs);
}

TEST_F(ApplyFaultsTest, ADamagedHistoryCostsNoJournaledOriginal) {
  auto dir = testing_support::TempDir::Create("nictune_damaged_history_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string history = dir->path() + "/nictune.db";
  for (const int offset_page : {4, 1, -1}) {
    SCOPED_TRACE(absl::StrCat("damage at page ", offset_page));
    CrashAfterAWrite(dir->path());
    // `dd if=/dev/urandom of=nictune.db bs=4096 seek=N count=1 conv=notrunc`; -1: the last page.
    const auto pages = static_cast<int64_t>(std::filesystem::file_size(history) / 4096);
    const int64_t page = offset_page < 0 ? pages - 1 : std::min<int64_t>(offset_page, pages - 1);
    std::fstream file(history, std::ios::in | std::ios::out | std::ios::binary);
    std::mt19937 random(static_cast<uint32_t>(offset_page + 10));
    std::string garbage(4096, '\0');
    for (char& c : garbage) c = static_cast<char>(random());
    file.seekp(page * 4096);
    file.write(garbage.data(), 4096);
    file.close();
    const std::string resolved = RestartAndResolve(dir->path());
    EXPECT_THAT(resolved, ContainsRegex(": [1-9][0-9]* restored")) << resolved;
  }
}

TEST_F(ApplyFaultsTest, AFullDiskAtStartStillRestoresTheCrashedChange) {
  absl::StatusOr<testing_support::TinyTmpfs> disk =
      testing_support::TinyTmpfs::Mount("nictune-full-start-", "4m");
  ASSERT_TRUE(disk.ok()) << disk.status();
  const std::string state_dir = disk->dir() + "/state";
  CrashAfterAWrite(state_dir);
  absl::StatusOr<int64_t> filled = testing_support::FillUntilFull(disk->dir() + "/filler");
  ASSERT_TRUE(filled.ok()) << filled.status();

  absl::StatusOr<BackgroundProgram> agent = StartAgent(state_dir);
  ASSERT_TRUE(agent.ok()) << agent.status();
  absl::StatusOr<std::string> resolved =
      testing_support::WaitForJournalResolution(*agent, absl::Seconds(30));
  ASSERT_TRUE(resolved.ok()) << resolved.status() << "\n" << AgentLog(*agent);
  EXPECT_THAT(*resolved, ContainsRegex(": [1-9][0-9]* restored"));
  EXPECT_EQ(host_->Knob(kRxUsecs).value_or(-1), kStartRxUsecs) << AgentLog(*agent);
  // The restore route is there although the history could not open.
  absl::StatusOr<ProgramOutput> restore = testing_support::RestoreThroughCli(state_dir);
  ASSERT_TRUE(restore.ok()) << restore.status();
  EXPECT_EQ(restore->exit_code, 0) << restore->out << restore->err;
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<ProgramOutput> done = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->exit_code, 0) << done->out;
  EXPECT_EQ(host_->Knob(kRxUsecs).value_or(-1), kStartRxUsecs);
  std::cout << "restart on a full disk: " << *resolved << "\n";
}

TEST_F(ApplyFaultsTest, AReadOnlyStateDirectoryIsRefusedWithItsErrno) {
  absl::StatusOr<testing_support::TinyTmpfs> disk =
      testing_support::TinyTmpfs::Mount("nictune-read-only-", "1m");
  ASSERT_TRUE(disk.ok()) << disk.status();
  ASSERT_TRUE(std::filesystem::create_directory(disk->dir() + "/state"));
  ASSERT_EQ(::mount(nullptr, disk->dir().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0)
      << std::strerror(errno);
  absl::StatusOr<ProgramOutput> apply = testing_support::RunProgram(
      testing_support::ApplyAgentArgv(*host_, {.state_dir = disk->dir() + "/state"}));
  ASSERT_TRUE(apply.ok()) << apply.status();
  EXPECT_EQ(apply->exit_code, 1) << apply->out;
  EXPECT_THAT(apply->out, HasSubstr("Read-only file system (errno 30)"));
  EXPECT_THAT(apply->out, Not(HasSubstr("change journal resolved")));
  EXPECT_EQ(host_->Knob(kRxUsecs).value_or(-1), kStartRxUsecs);
}

}  // namespace
}  // namespace nictune
