// SPDX-License-Identifier: Apache-2.0
// The built `nictune` against the built `nictuned` as a person uses them: the agent serves its
// unix socket in a temporary directory (no TCP), sampling every 200 ms with 1 s windows; the CLI
// runs status, recommend, whatif (seed 001), history, top --count=2 and --json, and their output
// and exit codes are checked. Without an agent, status exits 3 naming the socket.
#include <signal.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/http/unix_socket_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wrapped_text.h"

namespace nictune {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using testing_support::BackgroundProgram;
using testing_support::ProgramOutput;
using testing_support::RunProgram;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
const std::string kNictune = testing_support::BinaryDir() + "/agent/nictune";

using testing_support::TempDir;

using testing_support::JoinWrappedLines;
using testing_support::WidestLine;

class CliAgainstAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
      GTEST_SKIP() << why;
    }
    absl::StatusOr<TempDir> dir = TempDir::Create("nictune_cli_");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_.emplace(*std::move(dir));
    socket_ = dir_->path() + "/nictune.sock";
    absl::StatusOr<BackgroundProgram> agent =
        BackgroundProgram::Start({kNictuned, "--state_dir=" + dir_->path(), "--socket=" + socket_,
                                  "--listen=", "--interval=200ms", "--window=1s"});
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_.emplace(*std::move(agent));
    // Ready once status answers and the first tuner window has closed (recommendations exist).
    const absl::Time until = absl::Now() + absl::Seconds(30);
    while (absl::Now() < until) {
      const ProgramOutput status = Nictune({"--json", "status"});
      if (status.exit_code == 0 &&
          nlohmann::json::parse(status.out)["sampling"]["windows"].get<int64_t>() >= 1) {
        return;
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
    absl::StatusOr<ProgramOutput> output = agent_->Wait(absl::Seconds(1));
    FAIL() << "nictuned did not serve " << socket_ << " within 30 s; its stderr: "
           << (output.ok() ? output->err : output.status().ToString());
  }

  void TearDown() override {
    if (!agent_) return;
    ASSERT_TRUE(agent_->Signal(SIGTERM).ok());
    absl::StatusOr<ProgramOutput> output = agent_->Wait(absl::Seconds(10));
    ASSERT_TRUE(output.ok()) << output.status();
    EXPECT_EQ(output->exit_code, 0) << output->err;
  }

  ProgramOutput Nictune(std::vector<std::string> args) const {
    args.insert(args.begin(), {kNictune, "--socket=" + socket_});
    absl::StatusOr<ProgramOutput> output = RunProgram(args);
    EXPECT_TRUE(output.ok()) << output.status();
    return output.ok() ? *output : ProgramOutput{};
  }

  std::optional<TempDir> dir_;
  std::string socket_;
  std::optional<BackgroundProgram> agent_;
};

TEST_F(CliAgainstAgentTest, Status) {
  const ProgramOutput status = Nictune({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, ContainsRegex("^nictuned [0-9.]+, mode recommend, up "));
  EXPECT_THAT(status.out, HasSubstr("sampling every 200 ms, tuner window 1 s"));
  EXPECT_THAT(status.out, HasSubstr(absl::StrCat("store: ", dir_->path(), "/nictune.db: healthy")));
  EXPECT_THAT(status.out, ContainsRegex("\nBPF: [0-9]+ programs attached: "));
  EXPECT_THAT(status.out, ContainsRegex("\n/proc/interrupts +procfs +yes"));
  EXPECT_EQ(status.err, "");
}

TEST_F(CliAgainstAgentTest, RecommendAndWhy) {
  const ProgramOutput plain = Nictune({"recommend"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, ContainsRegex("KNOB +TARGET +CHANGE|no changes: every knob is as recommended"));
  const ProgramOutput json = Nictune({"recommend", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json set = nlohmann::json::parse(json.out);
  const ProgramOutput why = Nictune({"recommend", "--why"});
  EXPECT_EQ(why.exit_code, 0) << why.err;
  for (const nlohmann::json& r : set["recommendations"]) {
    EXPECT_THAT(plain.out, HasSubstr(r["knob"].get<std::string>()));
    EXPECT_THAT(why.out, HasSubstr("formula:    "));
  }
}

TEST_F(CliAgainstAgentTest, WhatifSeed001) {
  const ProgramOutput whatif = Nictune({"whatif", "--rate_pps=812744", "--truesize_bytes=2994",
                                        "--rcvbuf_bytes=212992", "--margin=0"});
  EXPECT_EQ(whatif.exit_code, 0) << whatif.err;
  EXPECT_THAT(whatif.out, HasSubstr("capacity 71.14 packets (71.14 usable), fill time 87.5 us\n"));
  EXPECT_THAT(whatif.out, HasSubstr("recommended: rx-usecs 87, the buffer as it is (212992 bytes)"));
  const ProgramOutput bad =
      Nictune({"whatif", "--rate_pps=812744", "--truesize_bytes=0", "--rcvbuf_bytes=212992"});
  // Refused by the CLI's own tuner, the agent's route in process: a usage error, nothing sent.
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(JoinWrappedLines(bad.err), HasSubstr("nictune: whatif field \"truesize_bytes\""));
  // The CLI's own answer is the agent's: the same JSON as the running agent's route gives.
  const ProgramOutput local =
      Nictune({"--json", "whatif", "--rate_pps=812744", "--truesize_bytes=2994",
               "--rcvbuf_bytes=212992", "--margin=0"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  absl::StatusOr<http::Response> agent_answer =
      http::Call(socket_, "POST", "/api/v1/whatif",
                 R"({"rate_pps":812744,"truesize_bytes":2994,"rcvbuf_bytes":212992,"margin":0})",
                 absl::Seconds(10));
  ASSERT_TRUE(agent_answer.ok()) << agent_answer.status();
  ASSERT_EQ(agent_answer->status, 200) << agent_answer->body;
  EXPECT_EQ(nlohmann::json::parse(local.out), nlohmann::json::parse(agent_answer->body));
  const ProgramOutput usage = Nictune({"whatif", "--rate_pps=812744"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_THAT(usage.err, HasSubstr("missing --truesize_bytes, --rcvbuf_bytes"));
}

TEST_F(CliAgainstAgentTest, History) {
  // The series the agent stores of itself every interval (docs/metrics.md "History").
  const ProgramOutput json =
      Nictune({"history", "--json", "--series=nictune_softnet_processed_total", "--since=-1m",
               "--step=1s"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json history = nlohmann::json::parse(json.out);
  ASSERT_FALSE(history["series"].empty()) << json.out;
  const ProgramOutput table =
      Nictune({"history", "--series=nictune_softnet_processed_total", "--since=-1m", "--step=1s"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("TIME (UTC)"));
  // Off a terminal the table is 80 columns wide: the series' name wraps in its header.
  EXPECT_THAT(table.out,
              ContainsRegex("nictune_softnet_processed_[^\n]*\n +total\\{cpu=0\\}"));
  EXPECT_LE(WidestLine(table.out), 80u) << table.out;
  const ProgramOutput spark = Nictune({"history", "--series=nictune_softnet_processed_total",
                                       "--since=-1m", "--step=1s", "--sparkline"});
  EXPECT_EQ(spark.exit_code, 0) << spark.err;
  EXPECT_THAT(spark.out, ContainsRegex("nictune_softnet_processed_total\\{cpu=0\\} +[▁▂▃▄▅▆▇█]+ "));
  // The stored series listed, and a well-formed name the store never held is an error, not an
  // empty table.
  const ProgramOutput list = Nictune({"history", "--list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, ContainsRegex("(^|\n)nictune_softnet_processed_total\n"));
  const ProgramOutput unknown = Nictune({"history", "--series=nictune_no_such_series"});
  EXPECT_EQ(unknown.exit_code, 1) << unknown.out;
  EXPECT_THAT(JoinWrappedLines(unknown.err), HasSubstr("nictune_no_such_series"));
  const ProgramOutput bad = Nictune({"history", "--series=1bad"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(JoinWrappedLines(bad.err), HasSubstr("GET /api/v1/history?series=1bad: 400 "));
}

TEST_F(CliAgainstAgentTest, TopTwoFrames) {
  const absl::Time start = absl::Now();
  const ProgramOutput top = Nictune({"top", "--count=2", "--interval=500ms"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(500));
  // Not a terminal: two plain frames, no escape sequences.
  EXPECT_EQ(std::count(top.out.begin(), top.out.end(), '\x1b'), 0);
  size_t frames = 0;
  for (size_t at = top.out.find("interval of "); at != std::string::npos;
       at = top.out.find("interval of ", at + 1)) {
    ++frames;
  }
  EXPECT_EQ(frames, 2u) << top.out;
  EXPECT_THAT(top.out, HasSubstr("DEVICE  QUEUE  KIND  IRQ  CPU  INTS/S"));
}

TEST_F(CliAgainstAgentTest, MutationsWithoutTheirEndpointSayWhatTheAgentSaid) {
  const ProgramOutput restore = Nictune({"restore"});
  // Whatever the agent answers (an outcome, 404 while the endpoint is missing, or 409), the CLI
  // says it in one line on stderr with exit 1, or prints the result with exit 0.
  if (restore.exit_code != 0) {
    EXPECT_EQ(restore.exit_code, 1);
    EXPECT_THAT(restore.err, HasSubstr(absl::StrCat("nictune: unix socket ", socket_,
                                                    ": POST /api/v1/restore: ")));
    EXPECT_EQ(std::count(restore.err.begin(), restore.err.end(), '\n'), 1);
  }
}

TEST(CliWithoutAgentTest, StatusExits3NamingTheSocket) {
  absl::StatusOr<TempDir> dir = TempDir::Create("nictune_cli_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<ProgramOutput> status =
      RunProgram({kNictune, "--socket=" + dir->path() + "/nictune.sock", "status"});
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->exit_code, 3);
  EXPECT_EQ(status->out, "");
  // Wrapped at 80 columns off a terminal, every word kept.
  EXPECT_LE(WidestLine(status->err), 80u) << status->err;
  EXPECT_EQ(JoinWrappedLines(status->err),
            absl::StrCat("nictune: cannot reach the agent: unix socket ", dir->path(),
                         "/nictune.sock: connect: No such file or directory (errno "
                         "2) (is nictuned running, and is --socket or --url the one "
                         "it serves?)\n"));
}

}  // namespace
}  // namespace nictune
