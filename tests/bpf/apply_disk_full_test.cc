// SPDX-License-Identifier: Apache-2.0
// On ENOSPC tuning pauses and /metrics keeps serving. The real nictuned in apply mode (inside a
// test namespace, its --proc_root a NamespaceProcRoot) keeps its state on a 2 MiB tmpfs and tunes
// an emulated NIC. Once the disk is full and the store says so, the NIC is set to an interval at
// which its socket overflows: for six windows the agent must change nothing (no original can be
// journaled first), say once that tuning is paused, and keep answering /metrics and /api/v1/status.
// When space is back, its next window journals and writes the change and says tuning resumed;
// SIGTERM restores the original and exits 0.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/http/unix_socket_client.h"
#include "driver/emulated/control_protocol.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/apply_agent.h"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/journal_file.h"
#include "tests/support/namespace_agent.h"
#include "tests/support/namespace_proc_root.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_tmpfs.h"

namespace nictune {
namespace {

using testing_support::BackgroundProgram;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
constexpr char kDevice[] = "emu0";
constexpr absl::Duration kWindow = absl::Seconds(1);
const std::string kRxUsecs(driver::emulated::kKeyRxUsecs);
constexpr int64_t kOverflowingRxUsecs = 8192;

absl::StatusOr<nlohmann::json> GetJson(const std::string& socket, const std::string& target) {
  absl::StatusOr<http::Response> reply = http::Call(socket, "GET", target, "", absl::Seconds(5));
  if (!reply.ok()) return reply.status();
  if (reply->status != 200) {
    return absl::UnavailableError(
        absl::StrCat(target, ": HTTP ", reply->status, ": ", reply->body));
  }
  nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, false);
  if (body.is_discarded()) return absl::DataLossError(absl::StrCat(target, ": not JSON"));
  return body;
}

// /metrics over the agent's socket answered 200 with the store's health in it.
absl::Status ScrapeMetrics(const std::string& socket) {
  absl::StatusOr<http::Response> reply =
      http::Call(socket, "GET", "/metrics", "", absl::Seconds(5));
  if (!reply.ok()) return reply.status();
  if (reply->status != 200 || !absl::StrContains(reply->body, "nictune_store_healthy")) {
    return absl::UnavailableError(absl::StrCat("/metrics: HTTP ", reply->status));
  }
  return absl::OkStatus();
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ApplyDiskFullTest, TuningPausesWhileNoOriginalCanBeJournaledAndResumesWhenSpaceFrees) {
  if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  // Declared before the agent, so it is unmounted after the agent is gone.
  auto disk = testing_support::TinyTmpfs::Mount("nictune-apply-full-", "2m");
  ASSERT_TRUE(disk.ok()) << disk.status();
  auto hosts = testing_support::VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  auto proc_root = testing_support::NamespaceProcRoot::Create();
  ASSERT_TRUE(proc_root.ok()) << proc_root.status();
  auto dir = testing_support::TempDir::Create("nictune_apply_full_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  // The NIC starts at an interval its socket takes: nothing to tune until the test changes it.
  auto nic = testing_support::EmulatedHost::Start(testing_support::SmallSocketNicOptions(
      absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic")));
  ASSERT_TRUE(nic.ok()) << nic.status();
  const std::string nic_socket = (*nic)->control_socket();

  const std::string state_dir = disk->dir() + "/state";
  const std::string socket = dir->path() + "/nictune.sock";
  auto agent = BackgroundProgram::Start(testing_support::NictunedInNamespace(
      (*hosts)->b().name(), kNictuned, proc_root->path(),
      {"--mode=apply", "--state_dir=" + state_dir, "--socket=" + socket,
       "--listen=", absl::StrCat("--emulated_nic=", kDevice, "=", nic_socket), "--interval=250ms",
       absl::StrCat("--window=", absl::FormatDuration(kWindow)), "--guard=2s",
       // A window's 4 samples reach 0.32 with the interrupt cost assumed, and 0.22 where the
       // probe's slots saw no drain gap: below the default 0.25 the change waits for a window
       // that saw one, which on a slower host did not come within the test's six. This test is
       // about the journal, not the confidence.
       "--min_confidence=0.1", "--on_exit=restore"}));
  ASSERT_TRUE(agent.ok()) << agent.status();
  ASSERT_TRUE(testing_support::WaitForJournalResolution(*agent, absl::Seconds(30)).ok())
      << testing_support::AgentLog(*agent);
  auto original = (*nic)->Knob(kRxUsecs);
  ASSERT_TRUE(original.ok()) << original.status();
  // The store opens after the journal is resolved: on a slow host it could otherwise meet the
  // full disk already at its open, and never write the samples this test watches fail.
  bool store_open = false;
  for (absl::Time until = absl::Now() + absl::Seconds(30); absl::Now() < until && !store_open;) {
    auto status = GetJson(socket, "/api/v1/status");
    store_open = status.ok() && (*status)["store"].value("configured", false) &&
                 (*status)["store"].value("healthy", false);
    if (!store_open) absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(store_open) << "the store never opened:\n" << testing_support::AgentLog(*agent);

  // Full: the store fails (samples first, within a few intervals).
  const std::string filler = disk->dir() + "/filler";
  auto filled = testing_support::FillUntilFull(filler);
  ASSERT_TRUE(filled.ok()) << filled.status();
  bool store_failed = false;
  for (absl::Time until = absl::Now() + absl::Seconds(15); absl::Now() < until && !store_failed;) {
    absl::SleepFor(absl::Milliseconds(200));
    auto status = GetJson(socket, "/api/v1/status");
    ASSERT_TRUE(status.ok()) << status.status();
    store_failed = !(*status)["store"].value("healthy", true);
  }
  ASSERT_TRUE(store_failed) << "the store never failed on the full disk:\n"
                            << testing_support::AgentLog(*agent);

  // Someone sets an interval at which every burst overflows the socket: the agent wants to
  // change it, and cannot journal the original first.
  ASSERT_TRUE((*nic)->SetKnob(kRxUsecs, kOverflowingRxUsecs).ok());
  int scrapes = 0;
  for (absl::Time until = absl::Now() + 6 * kWindow; absl::Now() < until;) {
    auto value = (*nic)->Knob(kRxUsecs);
    ASSERT_TRUE(value.ok()) << value.status();
    ASSERT_EQ(*value, kOverflowingRxUsecs)
        << "the agent changed rx_usecs with no journal to record the original:\n"
        << testing_support::AgentLog(*agent);
    absl::Status scraped = ScrapeMetrics(socket);
    ASSERT_TRUE(scraped.ok()) << scraped << "\n" << testing_support::AgentLog(*agent);
    ++scrapes;
    ASSERT_TRUE(GetJson(socket, "/api/v1/status").ok());
    absl::SleepFor(absl::Milliseconds(250));
  }
  const std::string while_full = testing_support::AgentLog(*agent);
  EXPECT_EQ(Count(while_full, "tuning paused"), 1) << while_full;
  EXPECT_EQ(Count(while_full, "<3>store: append samples:"), 1) << while_full;
  EXPECT_EQ(Count(while_full, "control step:"), 0) << "a paused window logged its control step:\n"
                                                   << while_full;
  {
    auto journal = testing_support::ReadJournalFile(state_dir + "/journal.db");
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_TRUE(journal->rows.empty()) << journal->rows.size() << " rows journaled on a full disk";
  }

  // Space is back: the next windows journal and make the change.
  ASSERT_EQ(unlink(filler.c_str()), 0) << filler;
  absl::StatusOr<int64_t> resumed = absl::DeadlineExceededError("not read");
  for (absl::Time until = absl::Now() + 6 * kWindow; absl::Now() < until;) {
    resumed = (*nic)->Knob(kRxUsecs);
    ASSERT_TRUE(resumed.ok()) << resumed.status();
    if (*resumed != kOverflowingRxUsecs) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_NE(*resumed, kOverflowingRxUsecs) << "tuning never resumed:\n"
                                           << testing_support::AgentLog(*agent);
  ASSERT_TRUE(agent->WaitForOutput("tuning resumed", absl::Seconds(5)).ok())
      << testing_support::AgentLog(*agent);
  auto journal = testing_support::ReadJournalFile(state_dir + "/journal.db");
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(journal->integrity, "ok");
  bool recorded = false;
  for (const testing_support::JournalRow& row : journal->rows) {
    recorded = recorded || (row.knob == kRxUsecs && row.original == kOverflowingRxUsecs);
  }
  EXPECT_TRUE(recorded) << "the change after the disk freed has no journal row";

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto exited = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->out;
  auto restored = (*nic)->Knob(kRxUsecs);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(*restored, kOverflowingRxUsecs) << "restore did not put the original back";
  std::cout << "rx_usecs " << *original << ", set to " << kOverflowingRxUsecs
            << " on the full disk (" << *filled << " filler bytes): unchanged for 6 windows, "
            << scrapes << " /metrics scrapes all 200; after the filler went: " << *resumed
            << "; the log:\n"
            << exited->out;
}

}  // namespace
}  // namespace nictune
