// SPDX-License-Identifier: Apache-2.0
// The closed loop on a real kernel receive path: the emulated NIC sends one UDP flow to a slow
// receiver whose socket overflows at the NIC's starting rx-usecs; the real nictuned in apply mode
// tunes the NIC through its control socket (--emulated_nic). Drops must stop within 5 tuner windows
// at an interrupt rate within 1.2x of the simulator's drop-free optimum for the same inputs; then a
// change followed by a regression (the receiver slows down) must be rolled back within one guard
// window, with the reason on GET /api/v1/changes. About a minute of traffic at 10-15k small
// packets/s, all inside the NIC's own namespace.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "driver/emulated/control_client.h"
#include "driver/emulated/control_protocol.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/host_sysctls.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tuner/limits.h"
#include "tuner/sim_whatif.h"

namespace nictune {
namespace {

using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;

constexpr char kDevice[] = "emu0";
constexpr double kRatePps = 10000;
constexpr int kFrameBytes = 128;
// The socket holds a few tens of datagrams: its fill time at 10k pps is a few milliseconds, so the
// drop-free rx-usecs is well inside the tuner's range and a start three times above it overflows.
constexpr int kRcvbufRequestBytes = 12000;
constexpr int64_t kNicSpinUs = 300;
constexpr absl::Duration kInterval = absl::Milliseconds(500);
constexpr absl::Duration kWindow = absl::Seconds(2);
// One window: a change is judged on the window after it and kept there, so that two halving steps
// and a drop-free window fit in the 5 windows the loop has.
constexpr absl::Duration kGuard = absl::Seconds(2);
// With the default 10 minutes a knob rolled back once (a stall of the emulated NIC bigger than
// its count of late interrupts tells, or a real regression) would stay parked for the rest of the
// test. Three windows (6 s) let the controller try again.
constexpr absl::Duration kCooldown = absl::Seconds(6);

// The largest rx-usecs at which the simulator sees neither socket nor ring drops for this flow and
// socket, and its interrupt rate there.
struct Optimum {
  int64_t rx_usecs = 0;
  double interrupts_per_s = 0;
};

absl::StatusOr<Optimum> SimulatorOptimum(double rate_pps, int64_t truesize, int64_t rcvbuf,
                                         int64_t ring_size) {
  auto drop_free = [&](int64_t rx_usecs) -> absl::StatusOr<tuner::WhatIfResult> {
    return tuner::SimulateWhatIf({.rate_pps = rate_pps,
                                  .truesize_bytes = truesize,
                                  .rcvbuf_bytes = rcvbuf,
                                  .rx_usecs = rx_usecs,
                                  .ring_size = ring_size});
  };
  int64_t low = 0;  // drop-free
  int64_t high = tuner::TunerRange(tuner::Knob::kRxUsecs).max + 1;
  absl::StatusOr<tuner::WhatIfResult> at_low = drop_free(low);
  if (!at_low.ok()) return at_low.status();
  if (at_low->drops_per_s > 0) {
    return absl::FailedPreconditionError("the simulator drops even at rx-usecs 0");
  }
  while (high - low > 1) {
    const int64_t mid = low + (high - low) / 2;
    absl::StatusOr<tuner::WhatIfResult> result = drop_free(mid);
    if (!result.ok()) return result.status();
    (result->drops_per_s > 0 ? high : low) = mid;
  }
  absl::StatusOr<tuner::WhatIfResult> best = drop_free(low);
  if (!best.ok()) return best.status();
  return Optimum{.rx_usecs = low, .interrupts_per_s = best->interrupts_per_s};
}

// The interrupt rate and socket drops over `span`, from the NIC's and the socket's own counters.
struct Span {
  double interrupts_per_s = 0;
  uint64_t socket_drops = 0;
  int64_t rx_usecs = 0;
  // How late the emulated interrupts fired: a late timer makes a bigger burst, so drops the
  // model does not predict show here first.
  double mean_late_us = 0;
  double max_late_us_so_far = 0;
  uint64_t nic_stalls =
      0;  // interrupts more than kStallNs (250 us) late (driver/emulated/counters.h)
};

absl::StatusOr<Span> Measure(EmulatedHost& host, absl::Duration span) {
  auto nic_before = host.Counters();
  auto drops_before = host.receiver().drops();
  if (!nic_before.ok()) return nic_before.status();
  if (!drops_before.ok()) return drops_before.status();
  absl::SleepFor(span);
  auto nic_after = host.Counters();
  auto drops_after = host.receiver().drops();
  if (!nic_after.ok()) return nic_after.status();
  if (!drops_after.ok()) return drops_after.status();
  const int64_t elapsed_ns = nic_after->elapsed_ns - nic_before->elapsed_ns;
  const uint64_t interrupts = nic_after->interrupts - nic_before->interrupts;
  return Span{
      .interrupts_per_s = static_cast<double>(nic_after->interrupts - nic_before->interrupts) *
                          1e9 / static_cast<double>(elapsed_ns),
      .socket_drops = *drops_after - *drops_before,
      .rx_usecs = nic_after->rx_usecs,
      .mean_late_us = interrupts > 0 ? static_cast<double>(nic_after->late_ns_total -
                                                           nic_before->late_ns_total) /
                                           1e3 / static_cast<double>(interrupts)
                                     : 0,
      .max_late_us_so_far = static_cast<double>(nic_after->late_ns_max) / 1e3,
      .nic_stalls = nic_after->stalls - nic_before->stalls};
}

// The rx_usecs rows of the change journal for our device, oldest first.
absl::StatusOr<std::vector<nlohmann::json>> RxUsecsChanges(uint16_t port) {
  absl::StatusOr<nlohmann::json> body =
      testing_support::GetJsonLoopback(port, "/api/v1/changes?since=0");
  if (!body.ok()) return body.status();
  std::vector<nlohmann::json> rows;
  for (const nlohmann::json& change : (*body)["changes"]) {
    if (change["knob"] == "rx_usecs" && change["target"] == kDevice) rows.push_back(change);
  }
  return rows;
}

// A row the controller wrote to undo a change that made things worse (the undone change's row
// quotes that reason too, after "superseded by change N").
bool IsRollback(const nlohmann::json& row) {
  const std::string reason = row.value("reason", std::string());
  return absl::StrContains(reason, "made things worse") &&
         !absl::StartsWith(reason, "superseded by");
}

// Returns just after the agent closed its next tuner window (by GET /api/v1/status), so that a
// load change the caller makes next lies inside one window instead of straddling two: a change
// judged against a window that was half at the old load looks like a regression.
absl::Status WaitForNextTunerWindow(uint16_t port) {
  auto windows = [port]() -> absl::StatusOr<int64_t> {
    absl::StatusOr<nlohmann::json> status =
        testing_support::GetJsonLoopback(port, "/api/v1/status");
    if (!status.ok()) return status.status();
    return (*status)["sampling"].value("windows", int64_t{0});
  };
  absl::StatusOr<int64_t> before = windows();
  if (!before.ok()) return before.status();
  const absl::Time give_up = absl::Now() + 2 * kWindow;
  while (absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(20));
    absl::StatusOr<int64_t> now = windows();
    if (!now.ok()) return now.status();
    if (*now > *before) return absl::OkStatus();
  }
  return absl::DeadlineExceededError("no tuner window closed in two windows");
}

// The value a change row replaced, from its reason: "rx_usecs emu0: 1901 -> 1932 (...".
std::optional<int64_t> ReplacedValue(const nlohmann::json& row) {
  const std::string reason = row.value("reason", std::string());
  const size_t arrow = reason.find(" -> ");
  const size_t colon = reason.rfind(": ", arrow);
  int64_t value = 0;
  if (arrow == std::string::npos || colon == std::string::npos ||
      !absl::SimpleAtoi(reason.substr(colon + 2, arrow - colon - 2), &value)) {
    return std::nullopt;
  }
  return value;
}

std::string Describe(const std::vector<nlohmann::json>& rows) {
  std::string out;
  for (const nlohmann::json& row : rows) absl::StrAppend(&out, row.dump(), "\n");
  return out;
}

class ClosedLoopTest : public ::testing::Test {
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

TEST_F(ClosedLoopTest, ApplyModeStopsDropsNearTheOptimumAndRollsBackARegression) {
  auto host = EmulatedHost::Start(EmulatedHostOptions{
      .nic_binary = absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = kDevice,
      .rate_pps = kRatePps,
      .frame_bytes = kFrameBytes,
      .rx_usecs = 100,
      // A NIC's coalescing timer fires on time; a sleeping thread wakes ~100 us late on this VM,
      // a third of this socket's slack at the optimum, so the emulated NIC spins to its deadline.
      .nic_spin_us = kNicSpinUs,
      .rcvbuf_bytes = kRcvbufRequestBytes});
  ASSERT_TRUE(host.ok()) << host.status();
  auto memory = (*host)->receiver().memory();
  ASSERT_TRUE(memory.ok()) << memory.status();
  const int64_t truesize = (*host)->truesize_bytes();
  const int64_t rcvbuf = memory->rcvbuf;

  auto optimum = SimulatorOptimum(kRatePps, truesize, rcvbuf, (*host)->options().ring_size);
  ASSERT_TRUE(optimum.ok()) << optimum.status();
  const int64_t start_rx_usecs =
      std::min<int64_t>(3 * optimum->rx_usecs, tuner::TunerRange(tuner::Knob::kRxUsecs).max);
  std::cout << "flow " << kRatePps << " pps, truesize " << truesize << " B, rcvbuf " << rcvbuf
            << " B: simulator's drop-free optimum rx-usecs " << optimum->rx_usecs << " = "
            << optimum->interrupts_per_s << " interrupts/s; starting at rx-usecs " << start_rx_usecs
            << "\n";
  ASSERT_TRUE(driver::emulated::ControlClient((*host)->control_socket())
                  .Call({.verb = driver::emulated::ControlVerb::kSet,
                         .key = std::string(driver::emulated::kKeyRxUsecs),
                         .value = start_rx_usecs})
                  .ok());

  // The premise: at the starting rx-usecs the receiver's socket overflows.
  auto before = Measure(**host, kWindow);
  ASSERT_TRUE(before.ok()) << before.status();
  std::cout << "before nictuned: rx-usecs " << before->rx_usecs << ", " << before->interrupts_per_s
            << " interrupts/s, " << before->socket_drops << " socket drops in " << kWindow << "\n";
  ASSERT_GT(before->socket_drops, 0u);

  auto dir = testing_support::TempDir::Create("nictune_closed_loop_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  std::vector<std::string> argv = {
      // The agent logs to stderr; through the shell it lands in the output a failure prints.
      "/bin/sh",
      "-c",
      "exec \"$0\" \"$@\" 2>&1",
      absl::StrCat(testing_support::BinaryDir(), "/agent/nictuned"),
      "--mode=apply",
      absl::StrCat("--emulated_nic=", kDevice, "=", (*host)->control_socket()),
      absl::StrCat("--listen=127.0.0.1:", *port),
      "--state_dir=" + dir->path(),
      "--socket=",
      absl::StrCat("--interval=", absl::FormatDuration(kInterval)),
      absl::StrCat("--window=", absl::FormatDuration(kWindow)),
      absl::StrCat("--guard=", absl::FormatDuration(kGuard)),
      absl::StrCat("--cooldown=", absl::FormatDuration(kCooldown)),
      "--on_exit=restore"};
  // NICTUNE_TUNER_MARGIN=m runs the loop at another margin (tuner/README.md's side by side).
  if (const char* margin = std::getenv("NICTUNE_TUNER_MARGIN"); margin != nullptr) {
    argv.push_back(absl::StrCat("--tuner_margin=", margin));
    std::cout << "tuner margin " << margin << "\n";
  }
  auto agent = testing_support::BackgroundProgram::Start(argv);
  ASSERT_TRUE(agent.ok()) << agent.status();
  // Windows count from the agent's start of sampling: loading its BPF programs on a busy host
  // takes seconds, and it serves HTTP only after that.
  absl::Time agent_started = absl::Now();
  while (!testing_support::GetJsonLoopback(*port, "/api/v1/status").ok()) {
    auto output = agent->OutputSoFar();
    ASSERT_LT(absl::Now() - agent_started, absl::Seconds(60))
        << "nictuned did not serve /api/v1/status; its log:\n"
        << (output.ok() ? *output : output.status().ToString());
    absl::SleepFor(absl::Milliseconds(200));
  }
  agent_started = absl::Now();

  // Drops fall to zero within 5 windows: a whole window without a socket drop, by the socket's
  // own counter, ending no later than 5 windows after the agent started. A window in which the
  // emulated NIC itself stalled (an interrupt over kStallNs late: this VM's vCPU was taken away,
  // and the burst that follows overflows the socket at any setting) tests nothing of the tuner: it
  // is printed and the deadline moves by one window.
  std::optional<absl::Duration> drop_free_after;
  absl::Duration deadline = 5 * kWindow;
  while (absl::Now() - agent_started < deadline && deadline < 20 * kWindow) {
    auto span = Measure(**host, kWindow);
    ASSERT_TRUE(span.ok()) << span.status();
    std::cout << "  t=" << absl::Now() - agent_started << ": rx-usecs " << span->rx_usecs << ", "
              << span->interrupts_per_s << " interrupts/s, " << span->socket_drops
              << " socket drops, interrupts late by " << span->mean_late_us
              << " us on average (at most " << span->max_late_us_so_far << " us so far), "
              << span->nic_stalls << " NIC stalls\n";
    if (span->nic_stalls > 0 && span->socket_drops > 0) {
      deadline += kWindow;
      continue;
    }
    if (span->socket_drops == 0) {
      drop_free_after = absl::Now() - agent_started;
      break;
    }
  }
  auto changes = RxUsecsChanges(*port);
  auto output = agent->OutputSoFar();
  ASSERT_TRUE(changes.ok()) << changes.status() << "\nagent log:\n"
                            << (output.ok() ? *output : output.status().ToString());
  for (const nlohmann::json& row : *changes) {
    const absl::Time at = absl::FromUnixNanos(static_cast<int64_t>(row.value("ts", 0.0) * 1e9));
    std::cout << "  rx-usecs -> " << row.value("new_value", int64_t{0})
              << " at t=" << at - agent_started << "\n";
  }
  auto recommendations = testing_support::GetJsonLoopback(*port, "/api/v1/recommendations");
  ASSERT_TRUE(drop_free_after.has_value())
      << "drops continued for 5 windows (" << deadline
      << " with the NIC's stalled windows); changes:\n"
      << Describe(*changes) << "recommendations:\n"
      << (recommendations.ok() ? recommendations->dump(1) : recommendations.status().ToString())
      << "\nagent log:\n"
      << (output.ok() ? *output : output.status().ToString());

  // Let the controller finish (a change is kept only after its guard window), then take the
  // final interrupt rate: the setting it holds for two windows in a row, the second without a
  // socket drop or a NIC stall. A drop in the second window (an emulated interrupt late by more
  // than the socket's slack, ~280 us here, which a hardware timer is not) makes the controller
  // step down again, so that setting was not the final one: measure on. A setting held above
  // 1.2x is measured on too: a stalled vCPU's drops step the controller down, and it probes back
  // up once the cooldown has passed. 12 attempts span over 7 cooldowns, so an agent that stays
  // above 1.2x still fails.
  std::optional<Span> settled;
  std::string attempts;
  // An attempt in which the NIC stalled shows the controller reacting to the stall's drops, not
  // to the tuner: it earns one more attempt, up to 24 in all.
  int attempts_allowed = 12;
  int attempts_run = 0;
  int attempts_stalled = 0;
  for (int attempt = 0; attempt < attempts_allowed &&
                        !(settled && settled->interrupts_per_s <= 1.2 * optimum->interrupts_per_s);
       ++attempt) {
    auto first = Measure(**host, kWindow);
    ASSERT_TRUE(first.ok()) << first.status();
    auto second = Measure(**host, kGuard);
    ASSERT_TRUE(second.ok()) << second.status();
    absl::StrAppend(&attempts, "  rx-usecs ", first->rx_usecs, " then ", second->rx_usecs, ": ",
                    second->interrupts_per_s, " interrupts/s, ", second->socket_drops,
                    " socket drops, ", second->nic_stalls, " NIC stalls, at most ",
                    second->max_late_us_so_far, " us late so far\n");
    if (first->rx_usecs == second->rx_usecs && second->socket_drops == 0 &&
        second->nic_stalls == 0) {
      settled = *second;
    }
    ++attempts_run;
    if (first->nic_stalls + second->nic_stalls > 0) {
      ++attempts_stalled;
      attempts_allowed = std::min(attempts_allowed + 1, 24);
    }
  }
  std::cout << attempts;
  // The controller climbs back only through guard windows free of drops. When the emulated NIC
  // stalled in most attempts (its thread off the CPU: each stall's burst overflows the socket at
  // any setting), no climb could hold, and neither settling nor the 1.2x bound would judge the
  // tuner rather than the host's timers. What is judged then: after the stalls' drops stepped it
  // down, the controller tried to climb back (a step above the lowest it went to), instead of
  // staying down.
  const bool host_stalled = attempts_stalled * 2 > attempts_run;
  const auto expect_upward_probe = [&] {
    auto steps = RxUsecsChanges(*port);
    ASSERT_TRUE(steps.ok()) << steps.status();
    const auto after_drop_free = [&](const nlohmann::json& row) {
      const absl::Time at = absl::FromUnixNanos(static_cast<int64_t>(row.value("ts", 0.0) * 1e9));
      return at > agent_started + *drop_free_after && !IsRollback(row);
    };
    bool climbed = false;
    int64_t lowest = std::numeric_limits<int64_t>::max();
    for (const nlohmann::json& row : *steps) {
      if (!after_drop_free(row)) continue;
      const int64_t value = row.value("new_value", int64_t{0});
      climbed |= lowest < value;
      lowest = std::min(lowest, value);
    }
    std::cout << "the emulated NIC stalled in " << attempts_stalled << " of " << attempts_run
              << " attempts: judged by whether the controller climbed back after stepping down "
                 "(lowest rx-usecs "
              << lowest << ")\n";
    // A climb needs a window without drops; when every attempt stalled there was none, and the
    // drops of each stall rightly stepped it down (the drop-free start and the rollback below are
    // still judged).
    if (attempts_stalled == attempts_run) {
      std::cout << "every attempt stalled: no drop-free window to climb from\n";
      return;
    }
    EXPECT_TRUE(climbed) << "no step up after a step down once the loop went drop-free; "
                            "changes:\n"
                         << Describe(*steps);
  };
  if (!settled && host_stalled) {
    expect_upward_probe();
  } else {
    ASSERT_TRUE(settled.has_value())
        << "no two windows in a row at one rx-usecs ending without drops; changes:\n"
        << Describe(*RxUsecsChanges(*port));
    std::cout << "settled: rx-usecs " << settled->rx_usecs << ", " << settled->interrupts_per_s
              << " interrupts/s (" << settled->interrupts_per_s / optimum->interrupts_per_s
              << "x the simulator's optimum), 0 socket drops in " << kGuard << "\n";
    if (settled->interrupts_per_s > 1.2 * optimum->interrupts_per_s && host_stalled) {
      expect_upward_probe();
    } else {
      EXPECT_LE(settled->interrupts_per_s, 1.2 * optimum->interrupts_per_s);
    }
  }

  // A regression after a change. A faster flow makes the agent shorten the interval again; as
  // soon as that change is applied the receiver slows down to a few datagrams per 20 ms, so
  // drops grow far beyond the baseline the change was made in. The controller must undo it.
  auto journal_before = RxUsecsChanges(*port);
  ASSERT_TRUE(journal_before.ok()) << journal_before.status();
  ASSERT_TRUE(WaitForNextTunerWindow(*port).ok());
  ASSERT_TRUE((*host)->SetRate(1.5 * kRatePps).ok());
  std::optional<nlohmann::json> change;
  const absl::Time rate_raised = absl::Now();
  while (!change && absl::Now() - rate_raised < 5 * kWindow) {
    absl::SleepFor(absl::Milliseconds(100));
    auto journal = RxUsecsChanges(*port);
    ASSERT_TRUE(journal.ok()) << journal.status();
    for (const nlohmann::json& row : *journal) {
      bool seen_before = false;
      for (const nlohmann::json& old : *journal_before) seen_before |= old["id"] == row["id"];
      // The controller's own step, whatever became of it since (a rollback is a row too).
      if (!seen_before && !IsRollback(row)) change = row;
    }
  }
  ASSERT_TRUE(change.has_value()) << "no change after the rate went up 1.5x; changes:\n"
                                  << Describe(*RxUsecsChanges(*port));
  // From the journal's time of the change, not from when this loop saw it.
  const absl::Time changed_at =
      absl::FromUnixNanos(static_cast<int64_t>(change->value("ts", 0.0) * 1e9));
  const int64_t changed_to = change->value("new_value", int64_t{0});
  // The value the change replaced, in the controller's words: a probe upward may still have been
  // in its guard window when the rate went up, and been undone before this change.
  const std::optional<int64_t> before_change = ReplacedValue(*change);
  ASSERT_TRUE(before_change.has_value()) << "no 'from -> to' in " << change->dump();
  ASSERT_TRUE((*host)->ReplaceReceiver(/*batch=*/4, absl::Milliseconds(20)).ok());
  std::cout << "change " << change->dump() << "\nreceiver slowed to 4 datagrams per 20 ms\n";

  std::optional<int64_t> rolled_back_to;
  while (!rolled_back_to && absl::Now() - changed_at < kGuard + kWindow) {
    absl::SleepFor(absl::Milliseconds(100));
    auto rx_usecs = (*host)->RxUsecs();
    ASSERT_TRUE(rx_usecs.ok()) << rx_usecs.status();
    if (*rx_usecs != changed_to) rolled_back_to = *rx_usecs;
  }
  auto journal = RxUsecsChanges(*port);
  ASSERT_TRUE(journal.ok()) << journal.status();
  // When, by the agent's clock: the rollback's journal row (this loop polls every 100 ms).
  std::optional<absl::Duration> rolled_back_after;
  for (const nlohmann::json& row : *journal) {
    const absl::Time at = absl::FromUnixNanos(static_cast<int64_t>(row.value("ts", 0.0) * 1e9));
    if (IsRollback(row) && at > changed_at && !rolled_back_after)
      rolled_back_after = at - changed_at;
  }
  auto events = testing_support::GetJsonLoopback(*port, "/api/v1/changes?since=0");
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_TRUE(rolled_back_to.has_value())
      << "rx-usecs stayed " << changed_to << " for " << kGuard + kWindow << "; changes:\n"
      << Describe(*journal);
  ASSERT_TRUE(rolled_back_after.has_value()) << "no rollback row; changes:\n" << Describe(*journal);
  std::cout << "rolled back to rx-usecs " << *rolled_back_to << " after " << *rolled_back_after
            << "\n";
  // The guard ends at the first window close at or after it: up to one sampling interval late.
  EXPECT_LE(*rolled_back_after, kGuard + kInterval);
  EXPECT_EQ(*rolled_back_to, *before_change) << "not the value before the change";
  // The reason is on the change log: the controller's words, in the journal row or its events.
  bool reason_logged = false;
  for (const nlohmann::json& row : *journal) {
    reason_logged |= absl::StrContains(row.value("reason", std::string()), "made things worse");
  }
  for (const nlohmann::json& event : (*events)["events"]) {
    reason_logged |= absl::StrContains(event.value("message", std::string()), "made things worse");
  }
  EXPECT_TRUE(reason_logged) << (*events).dump(2);

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto stopped = agent->Wait(absl::Seconds(10));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->exit_code, 0) << stopped->err;
  EXPECT_EQ(host_sysctls_->Differences(), "") << "--on_exit=restore left host sysctls changed";
}

}  // namespace
}  // namespace nictune
