// SPDX-License-Identifier: Apache-2.0
// Crash safety and hand changes of apply mode, with the real nictuned tuning the emulated NIC
// (the closed-loop test's flow, socket and timing: a start rx-usecs of 8192 overflows the socket,
// so the agent writes rx_usecs and rx_frames within a window or two).
//  - The agent is SIGKILLed at a seeded random time in its first windows, N times, on one NIC and
//    one --state_dir. After each kill the NIC holds, for every knob, the original or the value the
//    journal last recorded, and PRAGMA integrity_check is ok; the next start must put every
//    original back (--on_exit=restore resolves a crash of this boot) and close every row the crash
//    left pending. Every fifth iteration a restarted agent's live change is undone, alternately by
//    the CLI's `nictune restore` followed by SIGTERM, and by SIGTERM alone (--on_exit=restore),
//    which must put every original back and exit 0 within 5 s.
//    NICTUNE_CRASH_ITERATIONS (default 10) and NICTUNE_CRASH_SEED (default: the clock) set the run.
//  - A value written by hand over the agent's is never overwritten, shows as released on
//    GET /api/v1/changes, and survives `nictune restore` and the agent's exit.
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/store/change_state.h"
#include "driver/emulated/control_protocol.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/apply_agent.h"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/host_sysctls.h"
#include "tests/support/journal_file.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_env.h"

namespace nictune {
namespace {

using testing_support::AgentLog;
using testing_support::BackgroundProgram;
using testing_support::DescribeKnobs;
using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;
using testing_support::EnvInt;
using testing_support::JournalRow;
using testing_support::ProgramOutput;
using testing_support::WaitForJournalResolution;

constexpr char kDevice[] = "emu0";
constexpr int64_t kStartRxUsecs = 8192;
constexpr absl::Duration kInterval = absl::Milliseconds(500);
constexpr absl::Duration kWindow = absl::Seconds(2);
constexpr absl::Duration kGuard = absl::Seconds(2);
// Kills land this long after the agent resolved its journal, plus up to kKillSpan: its first write
// comes some 2.5 s in (probes, then the first window), the next ones a window or two later, so some
// kills land before any write and most after one or two.
const absl::Duration kKillFrom = absl::Seconds(1);
const absl::Duration kKillSpan = absl::Seconds(6);
const std::vector<std::string> kKnobs = {std::string(driver::emulated::kKeyRxUsecs),
                                         std::string(driver::emulated::kKeyRxFrames)};

std::string Describe(const std::vector<JournalRow>& rows) {
  std::string out;
  for (const JournalRow& row : rows) {
    absl::StrAppend(&out, "  #", row.id, " ", row.knob, " ", row.target, " original ", row.original,
                    " new ", row.new_value ? absl::StrCat(*row.new_value) : "-", " ", row.state,
                    ": ", row.reason, "\n");
  }
  return out;
}

bool IsPending(const JournalRow& row) {
  std::optional<store::ChangeState> state = store::ParseChangeState(row.state);
  return !state || store::IsPending(*state);
}

absl::StatusOr<BackgroundProgram> StartAgent(const EmulatedHost& host, const std::string& dir,
                                             const std::string& listen) {
  return testing_support::StartApplyAgent(host, {.state_dir = dir,
                                                 .listen = listen,
                                                 .interval = kInterval,
                                                 .window = kWindow,
                                                 .guard = kGuard});
}

// Waits until the agent has moved rx_usecs off `original` (a write of its own), within 5 windows.
absl::StatusOr<int64_t> WaitForAgentWrite(const EmulatedHost& host, int64_t original) {
  const absl::Time until = absl::Now() + 5 * kWindow;
  while (absl::Now() < until) {
    absl::StatusOr<int64_t> value = host.RxUsecs();
    if (!value.ok()) return value.status();
    if (*value != original) return *value;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::DeadlineExceededError("nictuned did not write rx_usecs within 5 windows");
}

// `nictune restore` through the CLI, once the agent serves its socket.
ProgramOutput RestoreThroughCli(const std::string& dir) {
  absl::StatusOr<ProgramOutput> output = testing_support::RestoreThroughCli(dir);
  EXPECT_TRUE(output.ok()) << output.status();
  return output.ok() ? *output : ProgramOutput{};
}

std::unique_ptr<EmulatedHost> StartHost(absl::Duration max_run) {
  EmulatedHostOptions options = testing_support::SmallSocketNicOptions(
      absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"));
  options.device = kDevice;
  options.max_run = max_run;
  auto host = EmulatedHost::Start(options);
  EXPECT_TRUE(host.ok()) << host.status();
  if (!host.ok()) return nullptr;
  absl::Status set = (*host)->SetKnob(std::string(driver::emulated::kKeyRxUsecs), kStartRxUsecs);
  EXPECT_TRUE(set.ok()) << set;
  return set.ok() ? *std::move(host) : nullptr;
}

class ApplyCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
    // The agent runs in the host's namespace, where the tuner may also write net.core sysctls:
    // its own restore must put them back, and the restorer does if it did not.
    auto captured = testing_support::SysctlRestorer::Capture(testing_support::TunedHostSysctls());
    ASSERT_TRUE(captured.ok()) << captured.status();
    host_sysctls_ = *std::move(captured);
  }
  std::unique_ptr<testing_support::SysctlRestorer> host_sysctls_;
};

// Where a kill landed, from the journal rows the killed agent wrote and the NIC's values.
enum class KillPoint { kBeforeAnyWrite, kBetweenJournalAndWrite, kAfterWrite, kWriteUnrecorded };

const char* KillPointName(KillPoint point) {
  switch (point) {
    case KillPoint::kBeforeAnyWrite:
      return "before any write";
    case KillPoint::kBetweenJournalAndWrite:
      return "between journal and write";
    case KillPoint::kAfterWrite:
      return "after write";
    case KillPoint::kWriteUnrecorded:
      return "after write, before its journal mark";
  }
  return "?";
}

TEST_F(ApplyCrashTest, SigkillAtRandomPointsLeavesOriginalsOrJournaledValuesAndASoundJournal) {
  const int iterations = EnvInt("NICTUNE_CRASH_ITERATIONS", 10);
  const int seed =
      EnvInt("NICTUNE_CRASH_SEED", static_cast<int>(absl::ToUnixSeconds(absl::Now()) % 100000));
  std::cout << "iterations " << iterations << ", seed " << seed << " (NICTUNE_CRASH_SEED=" << seed
            << " repeats the kill times)\n";
  std::mt19937 random(static_cast<std::mt19937::result_type>(seed));
  std::uniform_real_distribution<double> unit(0.0, 1.0);

  std::unique_ptr<EmulatedHost> host =
      StartHost(absl::Seconds(60) + iterations * absl::Seconds(20));
  ASSERT_NE(host, nullptr);
  auto originals = host->Knobs(kKnobs);
  ASSERT_TRUE(originals.ok()) << originals.status();
  std::cout << "originals: " << DescribeKnobs(*originals) << "\n";
  auto dir = testing_support::TempDir::Create("nictune_apply_crash_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string database = dir->path() + "/journal.db";

  std::map<KillPoint, int> outcomes;
  int restores = 0;
  int64_t rows_before = 0;  // the highest journal id before this iteration's agent started
  const absl::Time test_started = absl::Now();

  // Every knob at its original and no row of an earlier agent still pending: what each start must
  // leave after resolving the previous crash (or exit) of this boot.
  auto expect_resolved = [&](const std::string& when) {
    auto values = host->Knobs(kKnobs);
    ASSERT_TRUE(values.ok()) << values.status();
    EXPECT_EQ(*values, *originals) << when << ": the knobs are not back at their originals";
  };

  for (int iteration = 0; iteration < iterations; ++iteration) {
    // Stratified: iteration i's kill falls in the i-th slice of the span, at a random point in it.
    const double slice = (iteration + unit(random)) / iterations;
    const absl::Duration kill_after = kKillFrom + slice * kKillSpan;

    auto agent = StartAgent(*host, dir->path(), "");
    ASSERT_TRUE(agent.ok()) << agent.status();
    auto resolved = WaitForJournalResolution(*agent, absl::Seconds(60));
    ASSERT_TRUE(resolved.ok()) << resolved.status() << "\n" << AgentLog(*agent);
    EXPECT_TRUE(absl::StrContains(*resolved, " 0 failed")) << *resolved;
    expect_resolved(absl::StrCat("iteration ", iteration, " after the start resolved the journal"));
    {
      auto journal = testing_support::ReadJournalFile(database);
      if (journal.ok()) {  // the first agent may not have created the table's rows yet
        for (const JournalRow& row : journal->rows) {
          EXPECT_FALSE(IsPending(row))
              << "iteration " << iteration << ": row " << row.id
              << " of an earlier agent is still pending after the start resolved the journal:\n"
              << Describe(journal->rows);
        }
      }
    }

    absl::SleepFor(kill_after);
    ASSERT_TRUE(agent->Signal(SIGKILL).ok());
    auto killed = agent->Wait(absl::Seconds(10));
    ASSERT_TRUE(killed.ok()) << killed.status();

    auto values = host->Knobs(kKnobs);
    ASSERT_TRUE(values.ok()) << values.status();
    auto journal = testing_support::ReadJournalFile(database);
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_EQ(journal->integrity, "ok") << "iteration " << iteration;

    // Per knob: this agent's rows, the newest value they recorded, and whether the newest row is
    // still only journaled (its write may or may not have happened).
    KillPoint point = KillPoint::kBeforeAnyWrite;
    std::string verdicts;
    for (const std::string& knob : kKnobs) {
      std::vector<JournalRow> rows;
      for (const JournalRow& row : journal->rows) {
        if (row.id > rows_before && row.knob == knob && row.target == kDevice) rows.push_back(row);
      }
      const int64_t now = values->at(knob);
      const int64_t original = originals->at(knob);
      for (const JournalRow& row : rows) {
        EXPECT_EQ(row.original, original)
            << "iteration " << iteration << ": row " << row.id << " journaled a wrong original\n"
            << Describe(rows);
      }
      std::optional<int64_t> recorded;
      for (const JournalRow& row : rows) {
        if (row.new_value) recorded = row.new_value;
      }
      const bool newest_unmarked = !rows.empty() && rows.back().state == "journaled";
      KillPoint knob_point = KillPoint::kBeforeAnyWrite;
      if (now == original || (recorded && now == *recorded)) {
        if (newest_unmarked) {
          knob_point = KillPoint::kBetweenJournalAndWrite;
        } else if (!rows.empty()) {
          knob_point = KillPoint::kAfterWrite;
        }
      } else if (newest_unmarked) {
        // The write of the newest row landed and the agent died before marking it applied: the
        // journal still owes the original, and the next start must put it back (checked there).
        knob_point = KillPoint::kWriteUnrecorded;
      } else {
        ADD_FAILURE() << "iteration " << iteration << ": " << knob << " holds " << now
                      << ", neither its original " << original << " nor its journaled value "
                      << (recorded ? absl::StrCat(*recorded) : "(none)") << "; rows:\n"
                      << Describe(rows) << "agent log:\n"
                      << killed->out;
      }
      point = std::max(point, knob_point);
      absl::StrAppend(&verdicts, " ", knob, "=", now, " (", rows.size(), " rows)");
    }
    ++outcomes[point];
    if (!journal->rows.empty()) rows_before = journal->rows.back().id;
    std::cout << "iteration " << iteration << ": killed after " << kill_after << ": "
              << KillPointName(point) << ";" << verdicts << "; integrity " << journal->integrity
              << "\n";

    if (iteration % 5 == 4) {
      // A restarted agent resolves the crash, makes a live change, and the CLI undoes it.
      auto restarted = StartAgent(*host, dir->path(), "");
      ASSERT_TRUE(restarted.ok()) << restarted.status();
      auto resolved_again = WaitForJournalResolution(*restarted, absl::Seconds(60));
      ASSERT_TRUE(resolved_again.ok()) << resolved_again.status() << "\n" << AgentLog(*restarted);
      expect_resolved(absl::StrCat("iteration ", iteration, " restart"));
      auto written = WaitForAgentWrite(*host, originals->at("rx_usecs"));
      ASSERT_TRUE(written.ok()) << written.status() << "\n" << AgentLog(*restarted);
      const bool by_cli = iteration % 10 == 4;
      if (by_cli) {
        const ProgramOutput restore = RestoreThroughCli(dir->path());
        EXPECT_EQ(restore.exit_code, 0) << restore.out << restore.err;
        expect_resolved(absl::StrCat("iteration ", iteration, " after nictune restore"));
      }
      const absl::Time terminated = absl::Now();
      ASSERT_TRUE(restarted->Signal(SIGTERM).ok());
      auto stopped = restarted->Wait(absl::Seconds(15));
      ASSERT_TRUE(stopped.ok()) << stopped.status();
      const absl::Duration exit_took = absl::Now() - terminated;
      EXPECT_EQ(stopped->exit_code, 0) << stopped->out;
      // Every knob back and the process gone within 5 s of SIGTERM.
      EXPECT_LE(exit_took, absl::Seconds(5)) << stopped->out;
      expect_resolved(absl::StrCat("iteration ", iteration, " after SIGTERM"));
      auto after = testing_support::ReadJournalFile(database);
      ASSERT_TRUE(after.ok()) << after.status();
      EXPECT_EQ(after->integrity, "ok");
      for (const JournalRow& row : after->rows) {
        EXPECT_FALSE(IsPending(row)) << "row " << row.id << " pending after restore and exit:\n"
                                     << Describe(after->rows);
      }
      if (!after->rows.empty()) rows_before = after->rows.back().id;
      ++restores;
      std::cout << "iteration " << iteration << ": restarted, agent wrote rx_usecs " << *written
                << ", " << (by_cli ? "nictune restore and SIGTERM" : "SIGTERM alone")
                << " put back " << DescribeKnobs(*originals) << " (exit " << exit_took << " after "
                << "SIGTERM)\n";
    }
    if (::testing::Test::HasFatalFailure() || ::testing::Test::HasFailure()) break;
  }

  std::cout << "summary: " << iterations << " kills in " << absl::Now() - test_started << ":";
  for (KillPoint point : {KillPoint::kBeforeAnyWrite, KillPoint::kBetweenJournalAndWrite,
                          KillPoint::kAfterWrite, KillPoint::kWriteUnrecorded}) {
    std::cout << " " << outcomes[point] << " " << KillPointName(point) << ";";
  }
  std::cout << " " << restores << " restarts undone (by nictune restore, or by SIGTERM alone)\n";
  // Kills that all landed before the agent wrote anything would test nothing.
  EXPECT_GT(outcomes[KillPoint::kAfterWrite] + outcomes[KillPoint::kBetweenJournalAndWrite] +
                outcomes[KillPoint::kWriteUnrecorded],
            0);
}

TEST_F(ApplyCrashTest, AValueWrittenByHandIsNeverOverwrittenAndSurvivesRestore) {
  std::unique_ptr<EmulatedHost> host = StartHost(absl::Minutes(2));
  ASSERT_NE(host, nullptr);
  auto originals = host->Knobs(kKnobs);
  ASSERT_TRUE(originals.ok()) << originals.status();
  auto dir = testing_support::TempDir::Create("nictune_apply_hand_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  auto agent = StartAgent(*host, dir->path(), absl::StrCat("127.0.0.1:", *port));
  ASSERT_TRUE(agent.ok()) << agent.status();
  auto resolved = WaitForJournalResolution(*agent, absl::Seconds(60));
  ASSERT_TRUE(resolved.ok()) << resolved.status();

  const std::string rx_usecs(driver::emulated::kKeyRxUsecs);
  auto written = WaitForAgentWrite(*host, originals->at(rx_usecs));
  ASSERT_TRUE(written.ok()) << written.status() << "\n" << AgentLog(*agent);
  // Not a value the controller's halving and doubling from 8192 can reach.
  const int64_t by_hand = *written == 777 ? 555 : 777;
  ASSERT_TRUE(host->SetKnob(rx_usecs, by_hand).ok());
  std::cout << "agent wrote rx_usecs " << *written << "; set " << by_hand << " by hand\n";

  // Three windows: the agent reads the knob every window, finds someone else's value, and must
  // never write it again.
  const absl::Time watch_until = absl::Now() + 3 * kWindow;
  while (absl::Now() < watch_until) {
    auto value = host->Knob(rx_usecs);
    ASSERT_TRUE(value.ok()) << value.status();
    ASSERT_EQ(*value, by_hand) << "the agent overwrote a value set by hand; its log:\n"
                               << AgentLog(*agent);
    absl::SleepFor(absl::Milliseconds(50));
  }
  auto changes = testing_support::GetJsonLoopback(*port, "/api/v1/changes?since=0");
  ASSERT_TRUE(changes.ok()) << changes.status();
  std::optional<nlohmann::json> newest;
  for (const nlohmann::json& change : (*changes)["changes"]) {
    if (change["knob"] == rx_usecs && change["target"] == kDevice) newest = change;
  }
  ASSERT_TRUE(newest.has_value()) << changes->dump(1);
  EXPECT_EQ((*newest)["state"], "released") << newest->dump();
  EXPECT_EQ((*newest)["pending"], false) << newest->dump();
  EXPECT_TRUE(absl::StrContains(newest->value("reason", std::string()), "changed by someone else"))
      << newest->dump();
  // Status names the hand's value as another's, and none of the agent's own writes.
  auto status = testing_support::GetJsonLoopback(*port, "/api/v1/status");
  ASSERT_TRUE(status.ok()) << status.status();
  const nlohmann::json others = (*status)["knobs_changed_by_others"];
  EXPECT_EQ(others["total"], 1) << others.dump();
  ASSERT_EQ(others["latest"].size(), 1u) << others.dump();
  EXPECT_EQ(others["latest"][0]["knob"], rx_usecs) << others.dump();
  EXPECT_EQ(others["latest"][0]["target"], kDevice) << others.dump();
  EXPECT_EQ(others["latest"][0]["to"], by_hand) << others.dump();

  const ProgramOutput restore = RestoreThroughCli(dir->path());
  EXPECT_EQ(restore.exit_code, 0) << restore.out << restore.err;
  auto after_restore = host->Knobs(kKnobs);
  ASSERT_TRUE(after_restore.ok()) << after_restore.status();
  EXPECT_EQ(after_restore->at(rx_usecs), by_hand) << "nictune restore overwrote the hand value";
  // The knob the agent still owned goes back to its original.
  EXPECT_EQ(after_restore->at("rx_frames"), originals->at("rx_frames"));
  std::cout << "after nictune restore: " << DescribeKnobs(*after_restore) << "\n";

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto stopped = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->exit_code, 0) << stopped->out;
  auto after_exit = host->Knob(rx_usecs);
  ASSERT_TRUE(after_exit.ok()) << after_exit.status();
  EXPECT_EQ(*after_exit, by_hand)
      << "the agent's exit (--on_exit=restore) overwrote the hand value";
  auto journal = testing_support::ReadJournalFile(dir->path() + "/journal.db");
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(journal->integrity, "ok");
}

}  // namespace
}  // namespace nictune
