// SPDX-License-Identifier: Apache-2.0
// The probe budget holds under a flat-out flood: the plan stays within the budget's share of one
// CPU, and the kernel's own statistics for every program the agent's probe set loaded
// (kernel.bpf_stats_enabled, read with bpftool) stay near it, far below the set attached whole,
// with the per-packet probes on, the costliest set there is.
// The kernel does not time the dispatch around each run; the test adds the planner's figure for
// it (kDispatchFloorNsPerRun) to report the whole cost beside the budget.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "driver/bpf/probe_calibration.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/host_sysctls.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::UdpFlow;
using testing_support::VethHosts;
using testing_support::WhyNotPrivileged;

constexpr char kBpfStatsEnabled[] = "/proc/sys/kernel/bpf_stats_enabled";

struct ProgramStats {
  int64_t max_id = 0;   // the highest program id loaded on the host
  uint64_t run_ns = 0;  // of programs above the floor id
  uint64_t runs = 0;
};

// `bpftool prog show --json` summed over programs with an id above `floor_id`: those loaded after
// it was taken are the probe set's (no other tool loads programs during the test).
absl::StatusOr<ProgramStats> ReadProgramStats(int64_t floor_id) {
  absl::StatusOr<testing_support::ProgramOutput> out =
      testing_support::RunProgram({"bpftool", "prog", "show", "--json"});
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("bpftool prog show exited ", out->exit_code, ": ", out->err));
  }
  const nlohmann::json programs = nlohmann::json::parse(out->out, nullptr, false);
  if (!programs.is_array()) return absl::InternalError("bpftool prog show: not a JSON array");
  ProgramStats stats;
  for (const nlohmann::json& program : programs) {
    const int64_t id = program.value("id", int64_t{0});
    stats.max_id = std::max(stats.max_id, id);
    if (id <= floor_id) continue;
    stats.run_ns += program.value("run_time_ns", uint64_t{0});
    stats.runs += program.value("run_cnt", uint64_t{0});
  }
  return stats;
}

// The kernel's BPF statistics on (restored after), the programs loaded before the test (their
// ids are below the floor), and a veth pair with NAPI on the receiving end.
class ProbeBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
    absl::StatusOr<std::unique_ptr<testing_support::SysctlRestorer>> restorer =
        testing_support::SysctlRestorer::Capture({kBpfStatsEnabled});
    ASSERT_TRUE(restorer.ok()) << restorer.status();
    restorer_ = *std::move(restorer);
    ASSERT_TRUE(restorer_->Set(kBpfStatsEnabled, "1").ok());
    absl::StatusOr<ProgramStats> floor = ReadProgramStats(0);
    ASSERT_TRUE(floor.ok()) << floor.status();
    floor_ = *floor;
    absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({.napi_on_b = true});
    ASSERT_TRUE(hosts.ok()) << hosts.status();
    hosts_ = *std::move(hosts);
  }

  std::unique_ptr<testing_support::SysctlRestorer> restorer_;
  ProgramStats floor_;
  std::unique_ptr<VethHosts> hosts_;
};

TEST_F(ProbeBudget, AFlatOutFloodCostsTheProbesNoMoreThanTheBudget) {
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(*hosts_, {.rcvbuf_bytes = 1 << 20, .batch = 256, .run_time = absl::Seconds(7)},
                    {.packets = 1ull << 40, .payload_bytes = 64, .max_duration = absl::Seconds(6)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  driver::ProbeOptions options;
  options.per_packet_probes = true;
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes(options);
  ASSERT_TRUE(probes.ok()) << probes.status();
  const double budget = *options.budget_cpu_share;

  // A window inside the flood, once the budget has planned for it.
  absl::StatusOr<testing_support::UdpFlowResult> result;
  std::thread flooding([&] { result = flow->Run(); });
  absl::SleepFor(absl::Seconds(1));
  const absl::Time start = absl::Now();
  absl::StatusOr<ProgramStats> before = ReadProgramStats(floor_.max_id);
  absl::SleepFor(absl::Seconds(4));
  absl::StatusOr<ProgramStats> after = ReadProgramStats(floor_.max_id);
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  absl::StatusOr<driver::BpfCounters> counters = (*probes)->Read();
  flooding.join();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(before.ok() && after.ok()) << before.status() << after.status();
  ASSERT_TRUE(counters.ok()) << counters.status();

  const double run_ns = static_cast<double>(after->run_ns - before->run_ns);
  const double runs = static_cast<double>(after->runs - before->runs);
  const double body_share = run_ns / (seconds * 1e9);
  const double whole_share =
      (run_ns + runs * driver::bpf::kDispatchFloorNsPerRun) / (seconds * 1e9);
  std::cout << absl::StrFormat(
      "flood of %d datagrams: %.0f program runs a second, bodies %.4f of one CPU, with dispatch "
      "%.4f; budget %.4f, planned %.4f\n",
      result->sent.sent, runs / seconds, body_share, whole_share, budget,
      counters->budget.planned_ns_per_s / 1e9);
  for (const driver::HookDuty& hook : counters->hooks) {
    std::cout << absl::StrFormat(
        "  %-10s %-8s share %.3f, %.0f events/s, %.0f ns/event%s, %d slots, %.0f us of CPU a "
        "slot's links\n",
        hook.hook, hook.mode, hook.share, hook.events_per_s, hook.cost_ns_per_event,
        hook.cost_measured ? " (measured)" : "", hook.slots,
        hook.slots == 0
            ? 0.0
            : static_cast<double>(hook.link_cpu_ns) / 1e3 / static_cast<double>(hook.slots));
  }
  ASSERT_GT(result->sent.sent, 1000000u) << "the flood was too slow to test the budget";
  ASSERT_GT(runs, 0.0) << "no program of the probe set ran";
  EXPECT_FALSE(counters->budget.over_budget);
  EXPECT_LE(counters->budget.planned_ns_per_s, budget * 1e9);
  // What the programs cost may run past the budget by what the planner cannot know before it
  // pays: it prices events at its last calibration's cost per event, and runs cost more while
  // the other vCPU is busy. Its spend account then plans with less, down to half the budget.
  // Measured over the flat-out flood beside a busy core: 1.07x and 1.22x the budget in 2 of 12
  // runs, under it in the rest (`ci-replay --repeat 10 --busy`). A budget that does not hold is
  // the set attached whole: about 0.09 of a CPU here (the events/s and ns/event printed above),
  // 18x the default budget. The bound sits between the two.
  constexpr double kOverrunAllowed = 3.0;
  EXPECT_LE(body_share, kOverrunAllowed * budget);
  // The plan was made with the budget less any debt, never with more, never with nothing.
  EXPECT_GT(counters->budget.planning_cpu_share, 0);
  EXPECT_LE(counters->budget.planning_cpu_share, budget);
}

// nictuned switches the per-packet probes on only once a flood fills a socket, by which time the
// budget has slotted the other hooks and may plan only every few seconds (when link operations
// are dear). The per-packet hooks attach whole to be measured, and the drop hooks were planned
// whole while they saw nothing: the budget must cut them within a recheck or two (0.1 s each),
// not leave them whole until its next slotted plan.
TEST_F(ProbeBudget, PerPacketProbesSwitchedOnInADropFloodAreCutWithinARecheck) {
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(*hosts_,
                    {.rcvbuf_bytes = 32 << 10,
                     .batch = 64,
                     .drain_gap = absl::Milliseconds(1),
                     .run_time = absl::Seconds(9)},
                    {.packets = 1ull << 40, .payload_bytes = 64, .max_duration = absl::Seconds(8)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  driver::ProbeOptions options;
  options.per_packet_probes = false;
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes(options);
  ASSERT_TRUE(probes.ok()) << probes.status();
  const double budget = *options.budget_cpu_share;

  absl::StatusOr<testing_support::UdpFlowResult> result;
  std::thread flooding([&] { result = flow->Run(); });
  absl::SleepFor(absl::Milliseconds(1500));  // the other hooks slotted
  const absl::Status switched = (*probes)->SetPerPacketProbes(true);
  // Measured whole for a recheck, then planned; the window starts after that.
  absl::SleepFor(absl::Milliseconds(400));
  const absl::Time start = absl::Now();
  absl::StatusOr<driver::BpfCounters> counters_before = (*probes)->Read();
  absl::StatusOr<ProgramStats> before = ReadProgramStats(floor_.max_id);
  absl::SleepFor(absl::Seconds(4));
  absl::StatusOr<ProgramStats> after = ReadProgramStats(floor_.max_id);
  absl::StatusOr<driver::BpfCounters> counters = (*probes)->Read();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  flooding.join();
  ASSERT_TRUE(switched.ok()) << switched;
  ASSERT_TRUE(counters_before.ok()) << counters_before.status();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(before.ok() && after.ok()) << before.status() << after.status();
  ASSERT_TRUE(counters.ok()) << counters.status();

  const double body_share = static_cast<double>(after->run_ns - before->run_ns) / (seconds * 1e9);
  std::cout << absl::StrFormat(
      "per-packet probes on in a flood of %d datagrams, %d dropped: "
      "bodies %.4f of one CPU; budget %.4f\n",
      result->sent.sent, result->received.kernel_drops, body_share, budget);
  bool per_packet_slotted = false;
  std::map<std::string, double> attached_share;  // of the window, per hook
  for (size_t i = 0; i < counters->hooks.size(); ++i) {
    const driver::HookDuty& hook = counters->hooks[i];
    if (i < counters_before->hooks.size()) {
      attached_share[hook.hook] =
          static_cast<double>(hook.attached_ns - counters_before->hooks[i].attached_ns) /
          (seconds * 1e9);
    }
    std::cout << absl::StrFormat(
        "  %-10s %-8s share %.3f, %.0f events/s, attached %.3f of the window\n", hook.hook,
        hook.mode, hook.share, hook.events_per_s, attached_share[hook.hook]);
    per_packet_slotted |=
        hook.hook == "sockfill" && (hook.mode == "slotted" || hook.mode == "gated");
  }
  ASSERT_GT(result->sent.sent, 1000000u) << "the flood was too slow to test the budget";
  ASSERT_GT(result->received.kernel_drops, result->sent.sent / 2) << "the receiver kept up";
  EXPECT_TRUE(per_packet_slotted) << "sk_data_ready at the flood's rate fitted the budget whole";
  // The drop and per-packet hooks, tens to hundreds of thousands of events a second here, ran in
  // slots for most of the window, not whole until a later plan (sk_data_ready was attached for
  // three quarters of it before the whole hooks were rechecked between slotted plans).
  for (const char* hook : {"drops", "udp_fail", "sockfill", "truesize"}) {
    EXPECT_LT(attached_share[hook], 0.5) << hook << " was attached for most of the window";
  }
  // The plan's cost per event is an estimate (measured every 5 minutes): a quarter over the
  // budget is what the replan tolerates before it plans again (0.69-0.72% of a CPU before).
  EXPECT_LE(body_share, 1.25 * budget);
}

}  // namespace
}  // namespace nictune
