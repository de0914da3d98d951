// SPDX-License-Identifier: Apache-2.0
// The closed loop on a real kernel receive path: the emulated NIC sends one UDP flow to a slow
// receiver whose socket overflows at the NIC's starting rx-usecs; the real nictuned in apply mode
// tunes the NIC through its control socket (--emulated_nic). What holds on every run: drops stop
// within 5 tuner windows, the loop moves below the overflowing start and does not sit on a
// setting that drops, and a change followed by a regression (the receiver slows down) is rolled
// back within one guard window, with the reason on GET /api/v1/changes. How close to the
// simulator's drop-free optimum it settles, and how fast, depends on the emulated NIC's timing on
// the VM: ClosedLoopBench measures that over repeated runs (docs/testing.md "Run separately").
// About a minute of traffic at 10-15k small packets/s, all inside the NIC's own namespace.
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
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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
#include "tuner/stalls.h"

namespace nictune {
namespace {

using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;

constexpr char kDevice[] = "emu0";
constexpr double kRatePps = 10000;
// The regression: right after the change made for 1.5x the rate, the receiver's socket asks for
// a quarter of its buffer, 7.8 packets: at the ~1940 us that change sets, 29 packets a delivery,
// some 11000 drops/s against the ~3000/s at the interval before it.
constexpr int kRegressionRcvbufRequestBytes = 3000;
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
  // Interrupts more than kStallNs (250 us) late (driver/emulated/counters.h).
  uint64_t nic_stalls = 0;
  // Packets that arrived while the NIC's delivery was stalled (their summed lateness): a stall's
  // burst reaches the socket at once, so this many drops are the host's, at any setting. The
  // agent's guard leaves the same share out (tuner/stalls.h).
  double stalled_arrivals = 0;

  // Socket drops beyond what the NIC's stalls explain: the setting's own.
  double UnexplainedDrops() const {
    return std::max(0.0, static_cast<double>(socket_drops) - stalled_arrivals);
  }
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
      .nic_stalls = nic_after->stalls - nic_before->stalls,
      .stalled_arrivals = tuner::StalledArrivals(
          static_cast<double>(nic_after->generated - nic_before->generated),
          static_cast<double>(nic_after->stall_late_ns_total - nic_before->stall_late_ns_total) /
              1e9,
          absl::Nanoseconds(elapsed_ns))};
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

// The value a change row wrote; nullopt while the row is pending (its original journaled, the
// write not yet made: "new_value" is null until then).
std::optional<int64_t> NewValue(const nlohmann::json& row) {
  const auto it = row.find("new_value");
  if (it == row.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
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

absl::Time RowTime(const nlohmann::json& row) {
  return absl::FromUnixNanos(static_cast<int64_t>(row.value("ts", 0.0) * 1e9));
}

// One closed loop: the emulated host with its flow, and nictuned in apply mode tuning its NIC.
// Members are destroyed in reverse: the agent first, then its state dir, then the host.
struct LoopRig {
  std::unique_ptr<EmulatedHost> host;
  Optimum optimum;
  int64_t start_rx_usecs = 0;
  std::optional<testing_support::TempDir> dir;
  uint16_t port = 0;
  std::optional<testing_support::BackgroundProgram> agent;
  absl::Time agent_started;  // when it first served /api/v1/status
};

std::string AgentLog(const LoopRig& rig) {
  if (!rig.agent) return "(no agent)";
  absl::StatusOr<std::string> output = rig.agent->OutputSoFar();
  return output.ok() ? *output : output.status().ToString();
}

// The latest interval's drop records, sockets, probe coverage and protocol counters, for a
// failure's message: whose drops the agent saw, on which device, and how much of the interval its
// drop probe watched.
std::string LatestWindowDrops(uint16_t port) {
  absl::StatusOr<nlohmann::json> snapshot =
      testing_support::GetJsonLoopback(port, "/api/v1/snapshot");
  if (!snapshot.ok()) return snapshot.status().ToString();
  return absl::StrCat("drops: ", (*snapshot)["drops"].dump(),
                      "\nsockets: ", (*snapshot)["sockets"].dump(),
                      "\nprobes: ", (*snapshot)["probes"].dump(),
                      "\nprotocol_per_s: ", (*snapshot)["protocol_per_s"].dump());
}

// Starts the flow at three times the simulator's drop-free rx-usecs, checks that the socket
// overflows there, and starts nictuned in apply mode on the NIC.
absl::StatusOr<std::unique_ptr<LoopRig>> StartLoop() {
  auto rig = std::make_unique<LoopRig>();
  auto host = EmulatedHost::Start(EmulatedHostOptions{
      .nic_binary =
          absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = kDevice,
      .rate_pps = kRatePps,
      .frame_bytes = kFrameBytes,
      .rx_usecs = 100,
      // A NIC's coalescing timer fires on time; a sleeping thread wakes ~100 us late on this VM,
      // a third of this socket's slack at the optimum, so the emulated NIC spins to its deadline.
      .nic_spin_us = kNicSpinUs,
      .rcvbuf_bytes = kRcvbufRequestBytes});
  if (!host.ok()) return host.status();
  rig->host = *std::move(host);
  auto memory = rig->host->receiver().memory();
  if (!memory.ok()) return memory.status();
  const int64_t truesize = rig->host->truesize_bytes();
  auto optimum =
      SimulatorOptimum(kRatePps, truesize, memory->rcvbuf, rig->host->options().ring_size);
  if (!optimum.ok()) return optimum.status();
  rig->optimum = *optimum;
  rig->start_rx_usecs =
      std::min<int64_t>(3 * optimum->rx_usecs, tuner::TunerRange(tuner::Knob::kRxUsecs).max);
  std::cout << "flow " << kRatePps << " pps, truesize " << truesize << " B, rcvbuf "
            << memory->rcvbuf << " B: simulator's drop-free optimum rx-usecs " << optimum->rx_usecs
            << " = " << optimum->interrupts_per_s << " interrupts/s; starting at rx-usecs "
            << rig->start_rx_usecs << "\n";
  if (absl::Status set =
          rig->host->SetKnob(std::string(driver::emulated::kKeyRxUsecs), rig->start_rx_usecs);
      !set.ok()) {
    return set;
  }

  // The premise: at the starting rx-usecs the receiver's socket overflows.
  auto before = Measure(*rig->host, kWindow);
  if (!before.ok()) return before.status();
  std::cout << "before nictuned: rx-usecs " << before->rx_usecs << ", " << before->interrupts_per_s
            << " interrupts/s, " << before->socket_drops << " socket drops in " << kWindow << "\n";
  if (before->socket_drops == 0) {
    return absl::FailedPreconditionError(absl::StrCat("no socket drop at the starting rx-usecs ",
                                                      rig->start_rx_usecs, " in ",
                                                      absl::FormatDuration(kWindow)));
  }

  auto dir = testing_support::TempDir::Create("nictune_closed_loop_");
  if (!dir.ok()) return dir.status();
  rig->dir.emplace(*std::move(dir));
  auto port = testing_support::FreeLoopbackPort();
  if (!port.ok()) return port.status();
  rig->port = *port;
  std::vector<std::string> argv = {
      // The agent logs to stderr; through the shell it lands in the output a failure prints.
      "/bin/sh",
      "-c",
      "exec \"$0\" \"$@\" 2>&1",
      absl::StrCat(testing_support::BinaryDir(), "/agent/nictuned"),
      "--mode=apply",
      absl::StrCat("--emulated_nic=", kDevice, "=", rig->host->control_socket()),
      absl::StrCat("--listen=127.0.0.1:", rig->port),
      "--state_dir=" + rig->dir->path(),
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
  // Windows count from the agent's first sample: loading its BPF programs on a busy host takes
  // seconds.
  auto agent = testing_support::StartServingNictuned(argv, rig->port, absl::Seconds(60),
                                                     testing_support::NictunedReady::kFirstSample);
  if (!agent.ok()) return agent.status();
  rig->agent.emplace(*std::move(agent));
  rig->agent_started = absl::Now();
  return rig;
}

void Print(const LoopRig& rig, const Span& span) {
  std::cout << "  t=" << absl::Now() - rig.agent_started << ": rx-usecs " << span.rx_usecs << ", "
            << span.interrupts_per_s << " interrupts/s, " << span.socket_drops
            << " socket drops, interrupts late by " << span.mean_late_us
            << " us on average (at most " << span.max_late_us_so_far << " us so far), "
            << span.nic_stalls << " NIC stalls holding " << span.stalled_arrivals << " arrivals\n";
}

// Drops stop within 5 windows: a whole window whose socket drops (by the socket's own counter)
// are no more than what arrived during the emulated NIC's stalls, ending no later than 5 windows
// after the agent started. A stall (an interrupt over kStallNs late: this VM's vCPU was taken
// away) delivers its backlog in one burst that overflows the socket at any setting, and it can
// also push a setting's own burst over the edge: a window with stalls and more drops than they
// hold moves the deadline by one window, up to 20 windows in all. Returns when the first such
// window ended, or nullopt; every window measured is appended to `windows`.
absl::StatusOr<std::optional<absl::Duration>> WaitForDropFree(LoopRig& rig,
                                                              std::vector<Span>& windows) {
  absl::Duration deadline = 5 * kWindow;
  while (absl::Now() - rig.agent_started < deadline && deadline < 20 * kWindow) {
    auto span = Measure(*rig.host, kWindow);
    if (!span.ok()) return span.status();
    windows.push_back(*span);
    Print(rig, *span);
    if (span->UnexplainedDrops() == 0) return absl::Now() - rig.agent_started;
    if (span->nic_stalls > 0) deadline += kWindow;
  }
  return std::nullopt;
}

// Where the loop settles: the setting held for two windows in a row, the second without a
// socket drop beyond what the NIC's stalls explain. Other drops in the second window (an emulated
// interrupt late by more than the socket's slack, ~280 us here, which a hardware timer is not)
// make the controller step down again, so that setting was not the final one: measure on.
struct Settling {
  std::optional<Span> settled;
  absl::Duration settled_after;  // since the agent started, when `settled` ended
  int attempts_run = 0;
  int attempts_stalled = 0;  // attempts in which the emulated NIC stalled
  std::string log;
};

// Measures attempts (a window and a guard window) until one settles with an interrupt rate at or
// below `accept_ratio` times the optimum, or `attempts_allowed` ran. An attempt in which the NIC
// stalled shows the controller reacting to the stall's drops, not to the tuner: it earns one more
// attempt, up to twice `attempts_allowed`. Every window measured is appended to `windows`.
absl::StatusOr<Settling> Settle(LoopRig& rig, double accept_ratio, int attempts_allowed,
                                std::vector<Span>& windows) {
  Settling out;
  const int cap = 2 * attempts_allowed;
  const double accept = accept_ratio * rig.optimum.interrupts_per_s;
  for (int attempt = 0;
       attempt < attempts_allowed && !(out.settled && out.settled->interrupts_per_s <= accept);
       ++attempt) {
    auto first = Measure(*rig.host, kWindow);
    if (!first.ok()) return first.status();
    auto second = Measure(*rig.host, kGuard);
    if (!second.ok()) return second.status();
    windows.push_back(*first);
    windows.push_back(*second);
    absl::StrAppend(&out.log, "  rx-usecs ", first->rx_usecs, " then ", second->rx_usecs, ": ",
                    second->interrupts_per_s, " interrupts/s, ", second->socket_drops,
                    " socket drops, ", second->nic_stalls, " NIC stalls holding ",
                    second->stalled_arrivals, " arrivals, at most ", second->max_late_us_so_far,
                    " us late so far\n");
    if (first->rx_usecs == second->rx_usecs && second->UnexplainedDrops() == 0) {
      out.settled = *second;
      out.settled_after = absl::Now() - rig.agent_started;
    }
    ++out.attempts_run;
    if (first->nic_stalls + second->nic_stalls > 0) {
      ++out.attempts_stalled;
      attempts_allowed = std::min(attempts_allowed + 1, cap);
    }
  }
  return out;
}

// The most consecutive windows the loop spent at one rx-usecs while the socket dropped more than
// the emulated NIC's stalls explain (a stall's burst drops at any setting, so it says nothing of
// the setting).
int LongestDroppingRun(const std::vector<Span>& windows) {
  int longest = 0;
  int run = 0;
  std::optional<int64_t> held;
  for (const Span& window : windows) {
    const bool dropping = window.UnexplainedDrops() > 0;
    run = dropping ? (held == window.rx_usecs ? run + 1 : 1) : 0;
    held = window.rx_usecs;
    longest = std::max(longest, run);
  }
  return longest;
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

// Stops the agent as a person would and checks that it restored what it changed on the host.
void ExpectCleanStop(LoopRig& rig, testing_support::SysctlRestorer& host_sysctls) {
  ASSERT_TRUE(rig.agent->Signal(SIGTERM).ok());
  auto stopped = rig.agent->Wait(absl::Seconds(10));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->exit_code, 0) << stopped->err;
  EXPECT_EQ(host_sysctls.Differences(), "") << "--on_exit=restore left host sysctls changed";
}

TEST_F(ClosedLoopTest, ApplyModeStopsDropsAndRollsBackARegression) {
  auto rig = StartLoop();
  ASSERT_TRUE(rig.ok()) << rig.status();
  LoopRig& loop = **rig;
  const uint16_t port = loop.port;

  std::vector<Span> windows;
  auto drop_free_after = WaitForDropFree(loop, windows);
  ASSERT_TRUE(drop_free_after.ok()) << drop_free_after.status();
  auto changes = RxUsecsChanges(port);
  ASSERT_TRUE(changes.ok()) << changes.status() << "\nagent log:\n" << AgentLog(loop);
  for (const nlohmann::json& row : *changes) {
    const std::optional<int64_t> new_value = NewValue(row);
    std::cout << "  rx-usecs -> "
              << (new_value ? absl::StrCat(*new_value) : std::string("(pending)"))
              << " at t=" << RowTime(row) - loop.agent_started << "\n";
  }
  auto recommendations = testing_support::GetJsonLoopback(port, "/api/v1/recommendations");
  ASSERT_TRUE(drop_free_after->has_value())
      << "drops continued for 5 windows (more with the NIC's stalled windows); changes:\n"
      << Describe(*changes) << "recommendations:\n"
      << (recommendations.ok() ? recommendations->dump(1) : recommendations.status().ToString())
      << "\nagent log:\n"
      << AgentLog(loop);
  // Towards the fill math: the first step goes down from a start that overflows.
  ASSERT_FALSE(changes->empty());
  EXPECT_LT(NewValue(changes->front()).value_or(loop.start_rx_usecs), loop.start_rx_usecs)
      << Describe(*changes);

  // Let the controller finish (a change is kept only after its guard window) until it holds one
  // setting for two windows without drops. 6 attempts span two cooldowns.
  auto settling = Settle(loop, std::numeric_limits<double>::infinity(), 6, windows);
  ASSERT_TRUE(settling.ok()) << settling.status();
  std::cout << settling->log;
  // When the emulated NIC stalled in most attempts (its thread off the CPU: each stall's burst
  // overflows the socket at any setting), no setting could hold two clean windows, and whether
  // one did judges the host's timers rather than the tuner.
  const bool host_stalled = settling->attempts_stalled * 2 > settling->attempts_run;
  if (settling->settled) {
    std::cout << "settled: rx-usecs " << settling->settled->rx_usecs << ", "
              << settling->settled->interrupts_per_s << " interrupts/s ("
              << settling->settled->interrupts_per_s / loop.optimum.interrupts_per_s
              << "x the simulator's optimum)\n";
    EXPECT_LT(settling->settled->rx_usecs, loop.start_rx_usecs);
  } else {
    EXPECT_TRUE(host_stalled) << "no two windows in a row at one rx-usecs ending without drops, "
                                 "though the NIC stalled in only "
                              << settling->attempts_stalled << " of " << settling->attempts_run
                              << " attempts; changes:\n"
                              << Describe(*RxUsecsChanges(port));
  }
  // Never sits on a dropping setting: the controller steps away from a setting that drops at the
  // close of the window that saw it, unless the knob is parked after a rollback (at most a
  // cooldown) and then held off a reversal (at most another): 2 cooldowns and the window closing
  // each.
  const int allowed_run = static_cast<int>(2 * (kCooldown + kWindow) / kWindow);
  EXPECT_LE(LongestDroppingRun(windows), allowed_run)
      << "held a setting that dropped for " << LongestDroppingRun(windows)
      << " windows in a row; changes:\n"
      << Describe(*RxUsecsChanges(port));

  // A regression after a change. A faster flow makes the agent shorten the interval again; as
  // soon as that change is applied the receiver's socket is replaced by one with a quarter of the
  // buffer, so drops grow far beyond the baseline the change was made in. The guard cannot tell a
  // change's harm from the application's and must undo it. (A reader slowed to a few datagrams
  // per 20 ms would not do: the agent sets a stalled reader's drops aside as the reader's, not
  // the change's.)
  auto journal_before = RxUsecsChanges(port);
  ASSERT_TRUE(journal_before.ok()) << journal_before.status();
  ASSERT_TRUE(WaitForNextTunerWindow(port).ok());
  ASSERT_TRUE(loop.host->SetRate(1.5 * kRatePps).ok());
  std::optional<nlohmann::json> change;
  const absl::Time rate_raised = absl::Now();
  while (!change && absl::Now() - rate_raised < 5 * kWindow) {
    absl::SleepFor(absl::Milliseconds(100));
    auto journal = RxUsecsChanges(port);
    ASSERT_TRUE(journal.ok()) << journal.status();
    for (const nlohmann::json& row : *journal) {
      bool seen_before = false;
      for (const nlohmann::json& old : *journal_before) seen_before |= old["id"] == row["id"];
      // The controller's own step, once written, whatever became of it since (a rollback is a
      // row too).
      if (!seen_before && !IsRollback(row) && NewValue(row).has_value()) change = row;
    }
  }
  ASSERT_TRUE(change.has_value()) << "no change after the rate went up 1.5x; changes:\n"
                                  << Describe(*RxUsecsChanges(port)) << "\nagent log:\n"
                                  << AgentLog(loop);
  // From the journal's time of the change, not from when this loop saw it.
  const absl::Time changed_at = RowTime(*change);
  const int64_t changed_to = *NewValue(*change);
  // The value the change replaced, in the controller's words: a probe upward may still have been
  // in its guard window when the rate went up, and been undone before this change.
  const std::optional<int64_t> before_change = ReplacedValue(*change);
  ASSERT_TRUE(before_change.has_value()) << "no 'from -> to' in " << change->dump();
  ASSERT_TRUE(loop.host->ReplaceReceiverBuffer(kRegressionRcvbufRequestBytes).ok());
  std::cout << "change " << change->dump() << "\nreceiver's SO_RCVBUF request now "
            << kRegressionRcvbufRequestBytes << " bytes\n";

  std::optional<int64_t> rolled_back_to;
  while (!rolled_back_to && absl::Now() - changed_at < kGuard + kWindow) {
    absl::SleepFor(absl::Milliseconds(100));
    auto rx_usecs = loop.host->RxUsecs();
    ASSERT_TRUE(rx_usecs.ok()) << rx_usecs.status();
    if (*rx_usecs != changed_to) rolled_back_to = *rx_usecs;
  }
  auto journal = RxUsecsChanges(port);
  ASSERT_TRUE(journal.ok()) << journal.status();
  // When, by the agent's clock: the rollback's journal row (this loop polls every 100 ms).
  std::optional<absl::Duration> rolled_back_after;
  for (const nlohmann::json& row : *journal) {
    if (IsRollback(row) && RowTime(row) > changed_at && !rolled_back_after) {
      rolled_back_after = RowTime(row) - changed_at;
    }
  }
  auto events = testing_support::GetJsonLoopback(port, "/api/v1/changes?since=0");
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_TRUE(rolled_back_to.has_value())
      << "rx-usecs stayed " << changed_to << " for " << kGuard + kWindow << "; changes:\n"
      << Describe(*journal) << "\nthe latest interval's " << LatestWindowDrops(port)
      << "\nagent log:\n"
      << AgentLog(loop);
  ASSERT_TRUE(rolled_back_after.has_value()) << "no rollback row; changes:\n"
                                             << Describe(*journal) << "\nthe latest interval's "
                                             << LatestWindowDrops(port) << "\nagent log:\n"
                                             << AgentLog(loop);
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

  ExpectCleanStop(loop, *host_sysctls_);
}

// A benchmark, not a test (ctest leaves it out; docs/testing.md "Run separately"): how fast the
// loop goes drop-free and settles within 1.2x of the simulator's optimum, and where it settles,
// over NICTUNE_CLOSED_LOOP_RUNS loops (default 5). It fails only when a loop cannot be set up.
using ClosedLoopBench = ClosedLoopTest;

TEST_F(ClosedLoopBench, SettlingTimeAndRatioOverRepeatedLoops) {
  int runs = 5;
  if (const char* text = std::getenv("NICTUNE_CLOSED_LOOP_RUNS"); text != nullptr) {
    ASSERT_TRUE(absl::SimpleAtoi(text, &runs) && runs > 0) << "NICTUNE_CLOSED_LOOP_RUNS=" << text;
  }
  std::string table =
      "| run | drop-free after | settled after | rx-usecs | x the optimum | stalled attempts |\n"
      "|---:|---:|---:|---:|---:|---:|\n";
  for (int run = 1; run <= runs; ++run) {
    auto rig = StartLoop();
    ASSERT_TRUE(rig.ok()) << rig.status();
    std::vector<Span> windows;
    auto drop_free_after = WaitForDropFree(**rig, windows);
    ASSERT_TRUE(drop_free_after.ok()) << drop_free_after.status();
    auto settling = Settle(**rig, 1.2, 12, windows);
    ASSERT_TRUE(settling.ok()) << settling.status();
    std::cout << settling->log;
    const auto seconds = [](absl::Duration d) {
      return absl::StrFormat("%.1f s", absl::ToDoubleSeconds(d));
    };
    const std::optional<Span>& settled = settling->settled;
    absl::StrAppend(
        &table, "| ", run, " | ", *drop_free_after ? seconds(**drop_free_after) : "never", " | ",
        settled ? seconds(settling->settled_after) : "never", " | ",
        settled ? absl::StrCat(settled->rx_usecs) : "-", " | ",
        settled
            ? absl::StrFormat("%.3f", settled->interrupts_per_s / (*rig)->optimum.interrupts_per_s)
            : "-",
        " | ", settling->attempts_stalled, " of ", settling->attempts_run, " |\n");
    ExpectCleanStop(**rig, *host_sysctls_);
  }
  std::cout << table;
}

}  // namespace
}  // namespace nictune
