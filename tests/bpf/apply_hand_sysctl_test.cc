// SPDX-License-Identifier: Apache-2.0
// A host sysctl changed by hand during apply mode is never overwritten and survives restore,
// with the real nictuned writing net.core.rmem_default itself.
//
// How the write is provoked (tuner/interval_plan.cc, tuner/policy_rmem.cc): a 10000 pps flow of
// 128-byte frames on the emulated NIC into a socket that does not set SO_RCVBUF, created while the
// test holds net.core.rmem_default at 20480 B, so the agent sees it on the default buffer (its
// sk_rcvbuf equals rmem_default). At a truesize of ~768 B it takes C = 26.7 packets, of which the
// tuner uses (1 - 0.05) * C = 25.3, 25 whole ones: no interval above 25 / 10000 pps = 2.5 ms is
// drop-free. --tuner_interrupt_cpu_share=0.0004 puts the cost floor at 2 us / 0.0004 = 5000 us
// (the interrupt cost is assumed, 2 us, or measured higher), so no interval above the floor is
// drop-free and the buffer must grow: the rmem policy raises rmem_default to the worst socket's
// need at 5000 us, 50 packets / 0.95 * 768 B = 40421 B -> 40960 B, and the controller writes
// 20480 -> 40960 (also the step's bound, x2). Meanwhile the agent also tunes the NIC, which starts at rx-usecs
// 4000: rx-usecs toward the floor (or longer while no socket is seen yet) and rx-frames to the 25
// packets the socket takes; knobs it owns, which restore must put back beside the hand value.
//
// The test then sets rmem_default by hand to the host's own value (neither the agent's write nor
// the original it journaled), which also ends the few seconds the host ran with a small default.
// The agent must release the knob (journal row released, "changed by someone else"), never write
// it again over several windows, and `nictune restore` and SIGTERM (--on_exit=restore) must leave
// the hand value while putting back every other knob it changed. Every host-wide sysctl the tuner
// may write is captured first and restored at the end, also when the test fails.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
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
#include "tuner/policy_config.h"

namespace nictune {
namespace {

using testing_support::AgentLog;
using testing_support::DescribeKnobs;
using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;
using testing_support::SysctlRestorer;

constexpr char kRmemDefault[] = "/proc/sys/net/core/rmem_default";
constexpr char kRmemDefaultKnob[] = "rmem_default";
constexpr double kRatePps = 10000;
constexpr int kFrameBytes = 128;
constexpr int64_t kStartRxUsecs = 4000;
constexpr int64_t kLoweredRmemDefault = 20480;
// The share that puts the cost floor at 2 us / 0.0004 = 5000 us.
constexpr char kInterruptCpuShare[] = "0.0004";
constexpr double kCostFloorUs = 5000;
constexpr double kMargin = tuner::kDefaultMargin;
constexpr absl::Duration kInterval = absl::Milliseconds(500);
constexpr absl::Duration kWindow = absl::Seconds(2);
constexpr absl::Duration kGuard = absl::Seconds(2);
// Short, so that a knob restore put back is tuned again before SIGTERM: that restore has
// something of the agent's to put back too.
constexpr absl::Duration kCooldown = absl::Seconds(1);
const std::vector<std::string> kNicKnobs = {std::string(driver::emulated::kKeyRxUsecs),
                                            std::string(driver::emulated::kKeyRxFrames),
                                            std::string(driver::emulated::kKeyAdaptiveRx)};

std::string Describe(const nlohmann::json& changes) {
  std::string out;
  for (const nlohmann::json& c : changes) {
    absl::StrAppend(&out, "  #", c.value("id", int64_t{0}), " ", c.value("knob", ""), " ",
                    c.value("target", ""), " original ", c["original"].dump(), " new ",
                    c["new_value"].dump(), " ", c.value("state", ""), ": ",
                    c.value("reason", "").substr(0, 200), "\n");
  }
  return out;
}

absl::StatusOr<nlohmann::json> Changes(uint16_t port) {
  absl::StatusOr<nlohmann::json> body =
      testing_support::GetJsonLoopback(port, "/api/v1/changes?since=0");
  if (!body.ok()) return body.status();
  return (*body)["changes"];
}

std::vector<nlohmann::json> RowsOf(const nlohmann::json& changes, const std::string& knob) {
  std::vector<nlohmann::json> rows;
  for (const nlohmann::json& c : changes) {
    if (c.value("knob", "") == knob) rows.push_back(c);
  }
  return rows;
}

// Rows of the agent's own knobs other than the hand-set one, still owed to the kernel.
std::vector<nlohmann::json> PendingOthers(const nlohmann::json& changes) {
  std::vector<nlohmann::json> rows;
  for (const nlohmann::json& c : changes) {
    if (c.value("knob", "") != kRmemDefaultKnob && c.value("pending", false)) rows.push_back(c);
  }
  return rows;
}

// Polls /api/v1/changes every `period` until `done` holds for them, for up to `timeout`; returns
// those changes, or DeadlineExceeded saying what never happened, with the last changes read.
absl::StatusOr<nlohmann::json> PollChanges(uint16_t port, absl::Duration timeout,
                                           absl::Duration period, const std::string& awaited,
                                           const std::function<bool(const nlohmann::json&)>& done) {
  const absl::Time until = absl::Now() + timeout;
  nlohmann::json changes;
  while (absl::Now() < until) {
    absl::StatusOr<nlohmann::json> read = Changes(port);
    if (!read.ok()) return read.status();
    changes = *read;
    if (done(changes)) return changes;
    absl::SleepFor(period);
  }
  return absl::DeadlineExceededError(absl::StrCat(
      awaited, ": not within ", absl::FormatDuration(timeout), "; changes:\n", Describe(changes)));
}

// A row of another knob than rmem_default, newer than `after_id`, pending and verified: the agent
// holds a value there and its guard window passed, so no guard rollback can take it back before
// the test's restore does.
std::optional<nlohmann::json> VerifiedOther(const nlohmann::json& changes, int64_t after_id) {
  for (const nlohmann::json& row : PendingOthers(changes)) {
    if (row.value("id", int64_t{0}) > after_id && row.value("state", "") == "verified") return row;
  }
  return std::nullopt;
}

absl::StatusOr<nlohmann::json> WaitForVerifiedOther(uint16_t port, int64_t after_id,
                                                    absl::Duration timeout) {
  absl::StatusOr<nlohmann::json> changes = PollChanges(
      port, timeout, absl::Milliseconds(100),
      "a knob of the agent's other than rmem_default pending and verified",
      [after_id](const nlohmann::json& c) { return VerifiedOther(c, after_id).has_value(); });
  if (!changes.ok()) return changes.status();
  return *VerifiedOther(*changes, after_id);
}

// The changes once the agent's rmem_default row records `written` (the actuator marks it applied
// when it has read the value back).
absl::StatusOr<nlohmann::json> WaitForRecordedWrite(uint16_t port, int64_t written,
                                                    absl::Duration timeout) {
  return PollChanges(port, timeout, absl::Milliseconds(5),
                     absl::StrCat("the agent's rmem_default row recording ", written),
                     [written](const nlohmann::json& c) {
                       for (const nlohmann::json& row : RowsOf(c, kRmemDefaultKnob)) {
                         if (row["new_value"] == written) return true;
                       }
                       return false;
                     });
}

std::string Dump(const absl::StatusOr<nlohmann::json>& json) {
  return json.ok() ? json->dump(1) : json.status().ToString();
}

int64_t NewestId(const nlohmann::json& changes) {
  int64_t newest = 0;
  for (const nlohmann::json& c : changes) newest = std::max(newest, c.value("id", int64_t{0}));
  return newest;
}

// The value the controller stepped toward: "... (recommended N; ..." or "(step bounded to x2 or /2
// toward N; ...".
std::optional<int64_t> RecommendedIn(const std::string& reason) {
  static const std::regex pattern("(?:recommended|toward) ([0-9]+);");
  std::smatch match;
  if (!std::regex_search(reason, match, pattern)) return std::nullopt;
  return std::stoll(match[1].str());
}

// Every host sysctl the tuner may write, except the hand-set one, at its original.
void ExpectOtherSysctlsAtOriginals(const SysctlRestorer& restorer, const std::string& when) {
  for (const auto& [path, original] : restorer.originals()) {
    if (path == kRmemDefault) continue;
    absl::StatusOr<std::string> now = testing_support::ReadSysctl(path);
    ASSERT_TRUE(now.ok()) << now.status();
    EXPECT_EQ(*now, original) << when << ": " << path << " is not back at its original";
  }
}

class ApplyHandSysctlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(ApplyHandSysctlTest, AnRmemDefaultSetByHandIsNeverOverwrittenAndSurvivesRestore) {
  const absl::Time test_started = absl::Now();
  // Declared first, so destroyed last: after the agent and the NIC are gone, nothing can write
  // the sysctls again once it has put them back.
  auto restorer = SysctlRestorer::Capture(testing_support::TunedHostSysctls());
  ASSERT_TRUE(restorer.ok()) << restorer.status();
  const int64_t host_rmem_default = std::stoll((*restorer)->originals().at(kRmemDefault));
  ASSERT_GT(host_rmem_default, 2 * kLoweredRmemDefault)
      << "this host's rmem_default is already at most " << 2 * kLoweredRmemDefault
      << " B: lowering it to " << kLoweredRmemDefault << " would not make a socket smaller";

  // A device name of this test's own: other tests' emulated NICs (emu0) may run at the same time,
  // and the drop probe names a device of another namespace by its name alone.
  auto host = EmulatedHost::Start(EmulatedHostOptions{
      .nic_binary = absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = absl::StrCat("emh", getpid() % 100000),
      .rate_pps = kRatePps,
      .frame_bytes = kFrameBytes,
      .rx_usecs = kStartRxUsecs,
      .max_run = absl::Minutes(2)});
  ASSERT_TRUE(host.ok()) << host.status();
  auto nic_originals = (*host)->Knobs(kNicKnobs);
  ASSERT_TRUE(nic_originals.ok()) << nic_originals.status();

  auto dir = testing_support::TempDir::Create("nictune_apply_hand_sysctl_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  const std::vector<std::string> argv = testing_support::ApplyAgentArgv(
      **host, {.state_dir = dir->path(),
               .listen = absl::StrCat("127.0.0.1:", *port),
               .interval = kInterval,
               .window = kWindow,
               .guard = kGuard,
               .extra_flags = {absl::StrCat("--tuner_interrupt_cpu_share=", kInterruptCpuShare),
                               absl::StrCat("--cooldown=", absl::FormatDuration(kCooldown)),
                               // A window's 4 samples reach 0.32 with the interrupt cost assumed
                               // and 0.22 where the probe's slots timed no drain gap: below the
                               // default 0.25 the NIC's change after the restore waited past the
                               // test's eight windows in 7 of 12 runs. This test is about who
                               // owns a knob, not the confidence.
                               "--min_confidence=0.1"}});
  auto agent = testing_support::StartServingNictuned(argv, *port, absl::Seconds(60));
  ASSERT_TRUE(agent.ok()) << agent.status();

  // A socket on the default buffer, and a default small enough that no interval above the cost
  // floor keeps it from overflowing. From here until the hand change the host's other new
  // sockets get the small default too: a few seconds.
  ASSERT_TRUE((*restorer)->Set(kRmemDefault, absl::StrCat(kLoweredRmemDefault)).ok());
  const absl::Time lowered_at = absl::Now();
  ASSERT_TRUE((*host)->ReplaceReceiver(64, absl::ZeroDuration()).ok());
  auto memory = (*host)->receiver().memory();
  ASSERT_TRUE(memory.ok()) << memory.status();
  ASSERT_EQ(memory->rcvbuf, kLoweredRmemDefault)
      << "the receiver's socket in namespace " << (*host)->netns()
      << " did not get the host's rmem_default: is net.core.rmem_default per namespace here?";

  // The agent's write, within 6 windows (the per-packet probes switch on at the first drops and
  // the tuner window starts again, so the first window that sees the socket closes ~1 window in).
  int64_t written = kLoweredRmemDefault;
  const absl::Time write_deadline = absl::Now() + 6 * kWindow;
  while (written == kLoweredRmemDefault && absl::Now() < write_deadline) {
    absl::SleepFor(absl::Milliseconds(20));
    auto now = testing_support::ReadSysctlInteger(kRmemDefault);
    ASSERT_TRUE(now.ok()) << now.status();
    written = *now;
  }
  ASSERT_NE(written, kLoweredRmemDefault)
      << "nictuned did not write rmem_default within 6 windows; recommendations: "
      << Dump(testing_support::GetJsonLoopback(*port, "/api/v1/recommendations")) << "\nits log:\n"
      << AgentLog(*agent);
  // The file shows the value before the actuator has read it back and recorded it (its row is
  // still "journaled"): the hand change comes after the agent's whole write, as a person's would.
  auto changes = WaitForRecordedWrite(*port, written, absl::Seconds(2));
  ASSERT_TRUE(changes.ok()) << changes.status();
  // By hand: the host's own value, which is neither the agent's write (at most twice the lowered
  // default, which the host's exceeds, asserted at the start) nor the original it journaled.
  ASSERT_LE(written, 2 * kLoweredRmemDefault) << "the controller's step is bounded to x2";
  const int64_t by_hand = host_rmem_default;
  ASSERT_TRUE((*restorer)->Set(kRmemDefault, absl::StrCat(by_hand)).ok());
  const absl::Time hand_at = absl::Now();
  std::cout << "agent wrote rmem_default " << kLoweredRmemDefault << " -> " << written << " "
            << absl::FormatDuration(hand_at - lowered_at) << " after the test lowered it; set "
            << by_hand << " by hand\n";

  std::vector<nlohmann::json> rmem_rows = RowsOf(*changes, kRmemDefaultKnob);
  ASSERT_EQ(rmem_rows.size(), 1u) << Describe(*changes);
  const nlohmann::json& write_row = rmem_rows.front();
  EXPECT_EQ(write_row["target"], "host");
  EXPECT_EQ(write_row["original"], kLoweredRmemDefault) << write_row.dump();
  EXPECT_EQ(write_row["new_value"], written) << write_row.dump();
  const std::string write_reason = write_row.value("reason", "");
  std::cout << "its reason: " << write_reason << "\n";
  // The need at the cost floor, from the flow's rate and the truesize the kernel charged: the
  // buffer for 50 packets / (1 - margin); the measured rate may stray by 15%.
  const double truesize = static_cast<double>((*host)->truesize_bytes());
  const double need_bytes = kRatePps * kCostFloorUs * 1e-6 / (1 - kMargin) * truesize;
  std::optional<int64_t> recommended = RecommendedIn(write_reason);
  ASSERT_TRUE(recommended.has_value()) << write_reason;
  EXPECT_NEAR(static_cast<double>(*recommended), need_bytes, 0.15 * need_bytes)
      << "truesize " << truesize << " B; " << write_reason;
  EXPECT_EQ(written, std::min<int64_t>(*recommended, 2 * kLoweredRmemDefault))
      << "the controller's step is the recommendation bounded to x2";
  EXPECT_TRUE(absl::StrContains(write_reason, "the buffer must grow")) << write_reason;
  EXPECT_TRUE(absl::StrContains(write_reason, "cost floor")) << write_reason;

  // Three windows: the agent reads the knob every window, finds someone else's value, and must
  // never write it again.
  const absl::Time watch_until = absl::Now() + 3 * kWindow;
  while (absl::Now() < watch_until) {
    auto now = testing_support::ReadSysctlInteger(kRmemDefault);
    ASSERT_TRUE(now.ok()) << now.status();
    ASSERT_EQ(*now, by_hand) << "the agent overwrote a value set by hand; its log:\n"
                             << AgentLog(*agent);
    absl::SleepFor(absl::Milliseconds(50));
  }
  changes = Changes(*port);
  ASSERT_TRUE(changes.ok()) << changes.status();
  rmem_rows = RowsOf(*changes, kRmemDefaultKnob);
  ASSERT_EQ(rmem_rows.size(), 1u) << "the agent journaled another rmem_default change:\n"
                                  << Describe(*changes);
  EXPECT_EQ(rmem_rows.front()["state"], "released") << rmem_rows.front().dump();
  EXPECT_EQ(rmem_rows.front()["pending"], false) << rmem_rows.front().dump();
  const std::string release_reason = rmem_rows.front().value("reason", "");
  EXPECT_TRUE(absl::StrContains(release_reason, "changed by someone else")) << release_reason;
  EXPECT_TRUE(absl::StrContains(release_reason, absl::StrCat("now ", by_hand))) << release_reason;
  std::cout << "released: " << release_reason << "\n";
  auto metrics = testing_support::HttpGetLoopback(*port, "/metrics", absl::Seconds(5));
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(absl::StrContains(
      metrics->body,
      "nictune_knob_mode{knob=\"rmem_default\",mode=\"released\",target=\"host\"} 1"))
      << "the controller does not show rmem_default released on /metrics";

  // Restore with something of the agent's to put back beside the hand value.
  auto pending = WaitForVerifiedOther(*port, 0, 8 * kWindow);
  ASSERT_TRUE(pending.ok()) << pending.status() << "\nits log:\n" << AgentLog(*agent);
  auto restore = testing_support::RestoreThroughCli(dir->path(), {"--json"});
  ASSERT_TRUE(restore.ok()) << restore.status();
  EXPECT_EQ(restore->exit_code, 0) << restore->out << restore->err;
  const nlohmann::json restored = nlohmann::json::parse(restore->out, nullptr, false);
  ASSERT_FALSE(restored.is_discarded()) << restore->out;
  EXPECT_FALSE(restored["restored"].empty()) << restored.dump(1);
  for (const nlohmann::json& result : restored["restored"]) {
    EXPECT_NE(result.value("knob", ""), kRmemDefaultKnob) << restored.dump(1);
  }
  auto value = testing_support::ReadSysctlInteger(kRmemDefault);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, by_hand) << "nictune restore overwrote the hand value";
  auto nic_after_restore = (*host)->Knobs(kNicKnobs);
  ASSERT_TRUE(nic_after_restore.ok()) << nic_after_restore.status();
  EXPECT_EQ(*nic_after_restore, *nic_originals) << "nictune restore left an emulated NIC knob";
  ExpectOtherSysctlsAtOriginals(**restorer, "after nictune restore");
  std::cout << "nictune restore put back " << restored["restored"].size()
            << " knob(s) (emulated NIC: " << DescribeKnobs(*nic_after_restore)
            << ") and left rmem_default " << *value << "\n";

  // The agent tunes the NIC again once the restore's cooldown passes; SIGTERM must put that back
  // and still leave the hand value.
  auto restore_changes = Changes(*port);
  ASSERT_TRUE(restore_changes.ok()) << restore_changes.status();
  auto retuned = WaitForVerifiedOther(*port, NewestId(*restore_changes), 8 * kWindow);
  ASSERT_TRUE(retuned.ok()) << retuned.status() << "\nits log:\n" << AgentLog(*agent);
  auto before_exit = Changes(*port);
  ASSERT_TRUE(before_exit.ok()) << before_exit.status();
  std::cout << "the journal before SIGTERM:\n" << Describe(*before_exit);
  const absl::Time terminated = absl::Now();
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto stopped = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  const absl::Duration exit_took = absl::Now() - terminated;
  EXPECT_EQ(stopped->exit_code, 0) << stopped->out;
  EXPECT_LE(exit_took, absl::Seconds(5)) << stopped->out;
  if (const size_t at = stopped->out.find("--on_exit=restore: "); at != std::string::npos) {
    std::cout << "the agent: " << stopped->out.substr(at, stopped->out.find('\n', at) - at) << "\n";
  }
  value = testing_support::ReadSysctlInteger(kRmemDefault);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, by_hand) << "the agent's exit (--on_exit=restore) overwrote the hand value";
  auto nic_after_exit = (*host)->Knobs(kNicKnobs);
  ASSERT_TRUE(nic_after_exit.ok()) << nic_after_exit.status();
  EXPECT_EQ(*nic_after_exit, *nic_originals) << "SIGTERM left an emulated NIC knob; log:\n"
                                             << stopped->out;
  ExpectOtherSysctlsAtOriginals(**restorer, "after SIGTERM");
  auto journal = testing_support::ReadJournalFile(dir->path() + "/journal.db");
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(journal->integrity, "ok");
  int rmem_rows_at_exit = 0;
  for (const testing_support::JournalRow& row : journal->rows) {
    const std::optional<store::ChangeState> state = store::ParseChangeState(row.state);
    EXPECT_TRUE(state && !store::IsPending(*state))
        << "row " << row.id << " (" << row.knob << " " << row.target << ") still pending after "
        << "SIGTERM: " << row.state;
    if (row.knob == kRmemDefaultKnob) ++rmem_rows_at_exit;
  }
  EXPECT_EQ(rmem_rows_at_exit, 1) << "the agent journaled another rmem_default change";
  std::cout << "SIGTERM put back " << retuned->value("knob", "") << " "
            << retuned->value("target", "") << " (written " << (*retuned)["new_value"].dump() << ")"
            << "; the agent exited " << exit_took << " after SIGTERM and left rmem_default "
            << *value << "\n";

  // The host's own value goes back when the restorer does (it was the hand value already, unless
  // that had to differ); the agent's part, the other sysctls, is checked above.
  std::cout << "the other tuned host sysctls at their originals; the host ran with rmem_default "
            << kLoweredRmemDefault << " or the agent's " << written << " for "
            << absl::FormatDuration(hand_at - lowered_at) << "; test took "
            << absl::FormatDuration(absl::Now() - test_started) << "\n";
}

}  // namespace
}  // namespace nictune
