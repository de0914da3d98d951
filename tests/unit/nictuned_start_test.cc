// SPDX-License-Identifier: Apache-2.0
// The built nictuned as an operator meets it at start and under signals, without privileges
// (--bpf=false, recommend mode, state in a temporary directory, the CLI socket only): a --listen
// that does not parse is refused, a second agent on one state directory stops at once naming the
// first, SIGHUP checks a reload exactly as a start would and applies a shorter interval at once,
// a FIFO under --proc_root cannot hang it, and SIGTERM ends it promptly.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/unix_socket_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wrapped_text.h"

namespace nictune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::BackgroundProgram;
using testing_support::ProgramOutput;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";

class NictunedStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing_support::TempDir> dir =
        testing_support::TempDir::Create("nictuned-start-");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_.emplace(*std::move(dir));
  }

  std::string Dir() const { return dir_->path(); }
  std::string Socket() const { return Dir() + "/agent.sock"; }

  // The same, its log (stderr) merged into the stdout that BackgroundProgram watches.
  std::vector<std::string> Logged(const std::vector<std::string>& argv) const {
    std::vector<std::string> merged = {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"};
    merged.insert(merged.end(), argv.begin(), argv.end());
    return merged;
  }

  std::vector<std::string> Argv(const std::vector<std::string>& extra) const {
    std::vector<std::string> argv = {kNictuned, "--bpf=false",
                                     "--listen=", "--state_dir=" + Dir() + "/state",
                                     "--socket=" + Socket()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  // /api/v1/status once the agent serves it, within 10 s.
  absl::StatusOr<nlohmann::json> Status() const {
    const absl::Time until = absl::Now() + absl::Seconds(10);
    absl::Status last = absl::UnavailableError("not asked yet");
    while (absl::Now() < until) {
      absl::StatusOr<http::Response> reply =
          http::Call(Socket(), "GET", "/api/v1/status", "", absl::Seconds(2));
      if (reply.ok() && reply->status == 200) return nlohmann::json::parse(reply->body);
      last = reply.ok() ? absl::UnavailableError(reply->body) : reply.status();
      absl::SleepFor(absl::Milliseconds(50));
    }
    return last;
  }

  std::optional<testing_support::TempDir> dir_;
};

TEST_F(NictunedStartTest, AListenAddressThatDoesNotParseIsRefusedAtStart) {
  for (const char* listen : {"999.1.1.1:38119", "38119", "127.0.0.1:1,127.0.0.1:2"}) {
    std::vector<std::string> argv = Argv({});
    argv[2] = absl::StrCat("--listen=", listen);
    absl::StatusOr<ProgramOutput> run = testing_support::RunProgram(argv);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->exit_code, 2) << listen << ": " << run->err;
    EXPECT_THAT(run->err, HasSubstr(absl::StrCat("--listen=\"", listen, "\"")));
  }
}

// Apply mode whose windows can never be confident enough to act is refused, by a start and by
// --check alike, naming the flags to change. The proc root is none, so that a start that got
// further could write nothing of the host's (its self-test would stop it, exit 1).
TEST_F(NictunedStartTest, ApplyModeWithWindowsTooShortToActIsRefusedAtStart) {
  for (const char* check : {"--nocheck", "--check"}) {
    std::vector<std::string> argv = Argv({"--mode=apply", "--interval=1s", "--window=2s",
                                          "--proc_root=" + Dir() + "/no-proc", check});
    absl::StatusOr<ProgramOutput> run = testing_support::RunProgram(argv);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->exit_code, 2) << check << ": " << run->err;
    EXPECT_THAT(run->err, HasSubstr("a window of 2 samples gives a confidence of at most 0.16"));
  }
}

// Words where flags belong stop nictuned with exit 2 before it starts anything (`nictuned
// version`, `--once false`). Bounded: a start would outlive the 10 s wait.
TEST_F(NictunedStartTest, AStrayArgumentIsAUsageErrorNotAStart) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"version"}, std::vector<std::string>{"--once", "false"}}) {
    absl::StatusOr<BackgroundProgram> run = BackgroundProgram::Start(Argv(extra));
    ASSERT_TRUE(run.ok()) << run.status();
    absl::StatusOr<ProgramOutput> done = run->Wait(absl::Seconds(10));
    ASSERT_TRUE(done.ok()) << done.status();
    EXPECT_EQ(done->exit_code, 2) << done->err;
    EXPECT_THAT(done->err, HasSubstr(absl::StrCat("unexpected argument \"", extra.back(), "\"")));
    EXPECT_FALSE(std::filesystem::exists(Socket())) << extra.back();
  }
}

TEST_F(NictunedStartTest, AnAddressBeyondLoopbackIsServedWithAWarning) {
  std::vector<std::string> argv = Argv({});
  argv[2] = "--listen=0.0.0.0:0";
  absl::StatusOr<BackgroundProgram> agent = BackgroundProgram::Start(argv);
  ASSERT_TRUE(agent.ok()) << agent.status();
  ASSERT_TRUE(Status().ok());
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<ProgramOutput> done = agent->Wait(absl::Seconds(10));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_THAT(done->err, HasSubstr("not a loopback address"));
}

TEST_F(NictunedStartTest, ASecondAgentOnTheStateDirectoryStopsNamingTheFirst) {
  absl::StatusOr<BackgroundProgram> first = BackgroundProgram::Start(Argv({}));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(Status().ok());
  std::vector<std::string> second_argv = Argv({});
  second_argv[4] = "--socket=" + Dir() + "/second.sock";
  absl::StatusOr<ProgramOutput> second = testing_support::RunProgram(second_argv);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->exit_code, 1) << second->err;
  EXPECT_THAT(second->err, HasSubstr(absl::StrCat("held by PID ", first->pid())));
  // It stopped before it touched anything: no socket of its own, the first one still serving.
  EXPECT_FALSE(std::filesystem::exists(Dir() + "/second.sock"));
  EXPECT_TRUE(Status().ok());
}

// --check says what a start would meet: with an agent already on the state directory and the
// socket, a start stops, so --check exits 1 naming both; it takes and leaves nothing of theirs.
TEST_F(NictunedStartTest, CheckBesideARunningAgentSaysAStartWouldStop) {
  absl::StatusOr<BackgroundProgram> first = BackgroundProgram::Start(Argv({}));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(Status().ok());
  absl::StatusOr<BackgroundProgram> check = BackgroundProgram::Start(Argv({"--check"}));
  ASSERT_TRUE(check.ok()) << check.status();
  absl::StatusOr<ProgramOutput> done = check->Wait(absl::Seconds(20));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->exit_code, 1) << done->out << done->err;
  // Each item's detail wraps under its column: one line an item, read unwrapped.
  const std::string report = testing_support::JoinWrappedLines(done->out);
  EXPECT_THAT(report, ::testing::ContainsRegex(
                          "cannot +state directory lock +state directory .* is in use: its lock "
                          ".* is held by PID " +
                          std::to_string(first->pid())));
  EXPECT_THAT(report, ::testing::ContainsRegex("cannot +CLI socket +unix socket .*listens on it"));
  EXPECT_THAT(done->out, HasSubstr("nictuned cannot run as asked here"));
  EXPECT_TRUE(Status().ok()) << "the first agent still serves";
}

TEST_F(NictunedStartTest, SighupChecksAReloadAsAStartWouldAndAppliesAShorterIntervalAtOnce) {
  const std::string flagfile = Dir() + "/nictuned.flags";
  std::ofstream(flagfile) << "--interval=5s\n--window=10s\n";
  absl::StatusOr<BackgroundProgram> agent =
      BackgroundProgram::Start(Logged(Argv({"--flagfile=" + flagfile})));
  ASSERT_TRUE(agent.ok()) << agent.status();
  absl::StatusOr<nlohmann::json> before = Status();
  ASSERT_TRUE(before.ok()) << before.status();
  const int64_t samples_before = (*before)["sampling"]["samples"].get<int64_t>();

  std::ofstream(flagfile) << "--interval=200ms\n--window=1s\n";
  ASSERT_TRUE(agent->Signal(SIGHUP).ok());
  ASSERT_TRUE(agent->WaitForOutput("SIGHUP: reloaded", absl::Seconds(5)).ok());
  absl::SleepFor(absl::Seconds(1));
  absl::StatusOr<nlohmann::json> after = Status();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_DOUBLE_EQ((*after)["interval_s"].get<double>(), 0.2);
  EXPECT_GE((*after)["sampling"]["samples"].get<int64_t>(), samples_before + 3)
      << "the new interval waited for the old deadline";

  // 300 ms does not divide the store's 10 s tier: a start would refuse it, so SIGHUP does.
  std::ofstream(flagfile) << "--interval=300ms\n--window=1s\n";
  ASSERT_TRUE(agent->Signal(SIGHUP).ok());
  ASSERT_TRUE(agent->WaitForOutput("configuration kept", absl::Seconds(5)).ok());
  absl::StatusOr<nlohmann::json> kept = Status();
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_DOUBLE_EQ((*kept)["interval_s"].get<double>(), 0.2);

  // A directory where the flagfile was is not an empty flagfile.
  std::filesystem::remove(flagfile);
  std::filesystem::create_directory(flagfile);
  ASSERT_TRUE(agent->Signal(SIGHUP).ok());
  ASSERT_TRUE(agent->WaitForOutput("not a regular file", absl::Seconds(5)).ok())
      << *agent->OutputSoFar();

  const absl::Time signalled = absl::Now();
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<ProgramOutput> done = agent->Wait(absl::Seconds(10));
  const absl::Duration took = absl::Now() - signalled;
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->exit_code, 0) << done->err;
  EXPECT_LT(took, absl::Seconds(1)) << "SIGTERM took " << took;
  EXPECT_THAT(done->out, Not(HasSubstr("reloaded " + flagfile + ": nothing changed")));
}

TEST_F(NictunedStartTest, AFifoUnderProcRootCannotHangIt) {
  const std::string proc = Dir() + "/proc";
  std::filesystem::create_directories(proc + "/net");
  ASSERT_EQ(::mkfifo((proc + "/interrupts").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((proc + "/net/snmp").c_str(), 0600), 0);
  std::filesystem::copy_file("/proc/stat", proc + "/stat");
  absl::StatusOr<BackgroundProgram> once = BackgroundProgram::Start(
      {kNictuned, "--once", "--json", "--bpf=false", "--interval=100ms", "--proc_root=" + proc});
  ASSERT_TRUE(once.ok()) << once.status();
  absl::StatusOr<ProgramOutput> done = once->Wait(absl::Seconds(10));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_NE(done->exit_code, 128 + SIGKILL) << "still blocked after 10 s";
  EXPECT_THAT(done->out + done->err, HasSubstr("not a regular file"));

  // The service reads the same files every interval, and still answers SIGTERM.
  absl::StatusOr<BackgroundProgram> agent =
      BackgroundProgram::Start(Argv({"--interval=100ms", "--proc_root=" + proc}));
  ASSERT_TRUE(agent.ok()) << agent.status();
  ASSERT_TRUE(Status().ok());
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<ProgramOutput> stopped = agent->Wait(absl::Seconds(5));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->exit_code, 0) << stopped->err;
}

}  // namespace
}  // namespace nictune
