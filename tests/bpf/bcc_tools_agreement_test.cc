// SPDX-License-Identifier: Apache-2.0
// Hard IRQ and softirq times from the probes agree within 10% with BCC's libbpf-tools
// (/usr/sbin/hardirqs, /usr/sbin/softirqs) over the same window.
//
// The tools print one total per irq action name (hardirqs) and per softirq vector (softirqs),
// summed over CPUs; they have no per-CPU output, so the comparison is per irq / per vector with
// the probes' per-CPU counters summed. Windows: each tool is started with `-N <interval> 1`
// (nanoseconds, one report) and the test waits for its "Tracing" line (printed once attached)
// before reading the probes, makes load, and reads the probes again before the interval ends.
// The tool's window thus contains the probes' window; the excess is the idle activity of a few
// hundred milliseconds, small against the load.
// Our NET_RX time is timed in short slots of the flood (the softirq programs are duty-cycled) and
// scaled to every softirq /proc/softirqs counted (agent/model/softirq_time.h); the test checks
// that the duty cycle was in use.
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/model/softirq_time.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/bpf/counter_sums.h"
#include "tests/support/disk_writes.h"
#include "tests/support/flood_probe_budget.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/softirq_reading.h"
#include "tests/support/subprocess.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::BackgroundProgram;
using testing_support::WhyNotPrivileged;

constexpr uint32_t kNetRxVector = 3;                        // NET_RX_SOFTIRQ
constexpr absl::Duration kLoad = absl::Milliseconds(1500);  // disk writes for hardirqs
// The flood for softirqs: long enough for some 20 of the probes' timing slots (one per 0.2 s).
constexpr absl::Duration kFlood = absl::Seconds(4);
// Its receiver sleeps between reads instead of waiting on the socket, so that no softirq wakes it.
// A receiver that waits is woken by the first packet after each of its reads: how often depends
// on how far it keeps ahead of the sender, so any program attached for a slot (slowing the
// sender) changes the softirqs they time: measured, ours then read 150-390 ns per softirq above
// the tool's whole-window figure, against about one program's cost with this receiver.
constexpr absl::Duration kReceiverGap = absl::Milliseconds(5);
// The tools' window holds the load's: each tool reports once, after this many seconds.
constexpr int kToolIntervalSeconds = 6;

// "NAME   TOTAL_nsecs" lines after the header; returns name -> nanoseconds.
absl::StatusOr<std::map<std::string, uint64_t>> ParseToolTotals(const std::string& tool,
                                                                const std::string& text) {
  std::map<std::string, uint64_t> totals;
  bool in_table = false;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    if (absl::EndsWith(line, "TOTAL_nsecs")) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    const size_t space = line.find_last_of(' ');
    uint64_t value = 0;
    if (space == absl::string_view::npos || !absl::SimpleAtoi(line.substr(space + 1), &value)) {
      return absl::InternalError(absl::StrCat(tool, " output line ", line_number,
                                              ": expected \"NAME TOTAL_nsecs\", got \"", line,
                                              "\""));
    }
    totals[std::string(absl::StripAsciiWhitespace(line.substr(0, space)))] += value;
  }
  if (!in_table) {
    return absl::InternalError(absl::StrCat(tool, " printed no TOTAL_nsecs table: ", text));
  }
  return totals;
}

absl::StatusOr<BackgroundProgram> StartTool(const std::string& path) {
  // Line-buffered, so that "Tracing ..." shows as soon as the tool has attached.
  absl::StatusOr<BackgroundProgram> tool = BackgroundProgram::Start(
      {"stdbuf", "-oL", path, "-N", absl::StrCat(kToolIntervalSeconds), "1"});
  if (!tool.ok()) return tool.status();
  if (absl::Status attached = tool->WaitForOutput("Tracing", absl::Seconds(10)); !attached.ok()) {
    return attached;
  }
  return tool;
}

absl::StatusOr<std::map<std::string, uint64_t>> FinishTool(const std::string& tool_name,
                                                           BackgroundProgram& tool) {
  absl::StatusOr<testing_support::ProgramOutput> output =
      tool.Wait(absl::Seconds(kToolIntervalSeconds + 10));
  if (!output.ok()) return output.status();
  if (output->exit_code != 0) {
    return absl::InternalError(
        absl::StrCat(tool_name, " exited with ", output->exit_code, ": ", output->err));
  }
  return ParseToolTotals(tool_name, output->out);
}

// The disk irq's action name in /proc/interrupts, which is what hardirqs prints.
absl::StatusOr<std::pair<uint32_t, std::string>> BusiestIrqDuring(
    testing_support::DiskWrites& disk) {
  auto totals = []() -> absl::StatusOr<procfs::InterruptTable> {
    absl::StatusOr<std::string> text = procfs::ReadFile("/proc/interrupts");
    if (!text.ok()) return text.status();
    return procfs::ParseInterrupts(*text);
  };
  absl::StatusOr<procfs::InterruptTable> before = totals();
  if (!before.ok()) return before.status();
  if (absl::StatusOr<uint64_t> written = disk.Write(200, absl::Seconds(2)); !written.ok()) {
    return written.status();
  }
  absl::StatusOr<procfs::InterruptTable> after = totals();
  if (!after.ok()) return after.status();
  std::map<uint32_t, uint64_t> old;
  for (const procfs::InterruptLine& line : before->lines) {
    if (line.irq) old[*line.irq] = line.total;
  }
  std::pair<uint32_t, std::string> busiest;
  uint64_t most = 0;
  for (const procfs::InterruptLine& line : after->lines) {
    if (!line.irq) continue;
    const uint64_t delta = line.total - old[*line.irq];
    if (delta > most) {
      most = delta;
      busiest = {*line.irq, line.actions};
    }
  }
  if (most < 100) {
    return absl::FailedPreconditionError(
        absl::StrCat("no irq moved with 200 synced O_DIRECT writes (busiest moved ", most, ")"));
  }
  return busiest;
}

TEST(BccToolsAgreement, HardIrqTimeOfTheDiskIrqAgreesWithHardirqsWithinTenPercent) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<testing_support::DiskWrites> disk = testing_support::DiskWrites::Open();
  ASSERT_TRUE(disk.ok()) << disk.status();
  absl::StatusOr<std::pair<uint32_t, std::string>> irq = BusiestIrqDuring(*disk);
  ASSERT_TRUE(irq.ok()) << irq.status();
  // The irq pair attached whole: this compares the span our programs time with the tool's, and a
  // burst of disk interrupts can cost more than the probe budget, which would slot it.
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes({.budget_cpu_share = std::nullopt});
  ASSERT_TRUE(probes.ok()) << probes.status();

  absl::StatusOr<BackgroundProgram> tool = StartTool("/usr/sbin/hardirqs");
  ASSERT_TRUE(tool.ok()) << tool.status();
  absl::StatusOr<driver::BpfCounters> before = (*probes)->Read();
  absl::StatusOr<uint64_t> written = disk->Write(1000000, kLoad);
  // Ours is read once the tool's interval has ended, so that both windows hold the same disk
  // interrupts: the filesystem's journal commit after the writes lands in the tool's interval.
  absl::StatusOr<std::map<std::string, uint64_t>> tool_totals = FinishTool("hardirqs", *tool);
  absl::StatusOr<driver::BpfCounters> after = (*probes)->Read();
  ASSERT_TRUE(before.ok() && after.ok()) << before.status() << after.status();
  ASSERT_TRUE(written.ok()) << written.status();
  ASSERT_TRUE(tool_totals.ok()) << tool_totals.status();

  const auto tool_ns = tool_totals->find(irq->second);
  ASSERT_NE(tool_ns, tool_totals->end()) << "hardirqs printed no line for " << irq->second;
  const uint64_t probe_ns = bpf_tests::IrqTotalsFor(*after, irq->first).time_ns -
                            bpf_tests::IrqTotalsFor(*before, irq->first).time_ns;
  ASSERT_GT(tool_ns->second, 0u);
  // Both tools attach to the same two tracepoints, whose programs run in attach order: ours
  // first. So our entry-to-exit span also contains hardirqs' entry program (a string-keyed hash
  // update, ~200 ns here), while theirs contains only our cheap exit program. Ours therefore
  // reads higher by about one foreign program run per interrupt: +215 ns per event measured on
  // a quiet VM, up to +458 ns with the other vCPU busy (1 of 11 runs of `ci-replay --repeat 10
  // --busy` went past 300 ns), where every program runs slower. The band allows 700 ns per event
  // for it on top of the 10%.
  const uint64_t events = bpf_tests::IrqTotalsFor(*after, irq->first).count -
                          bpf_tests::IrqTotalsFor(*before, irq->first).count;
  const double tool_total = static_cast<double>(tool_ns->second);
  const double foreign_program_allowance = 700.0 * static_cast<double>(events);
  EXPECT_GE(static_cast<double>(probe_ns), 0.90 * tool_total)
      << "irq " << irq->first << " (" << irq->second << "), " << *written << " writes";
  EXPECT_LE(static_cast<double>(probe_ns), 1.10 * tool_total + foreign_program_allowance)
      << "irq " << irq->first << " (" << irq->second << "), " << events << " interrupts";
}

TEST(BccToolsAgreement, NetRxSoftirqTimeAgreesWithSoftirqsWithinTenPercent) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<testing_support::VethHosts>> hosts =
      testing_support::VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<testing_support::UdpFlow> flow = testing_support::UdpFlow::Open(
      **hosts,
      {.rcvbuf_bytes = 1 << 20,
       .batch = 256,
       .drain_gap = kReceiverGap,
       .run_time = kFlood + absl::Seconds(1)},
      {.packets = 1ull << 40, .payload_bytes = 64, .max_duration = kFlood});
  ASSERT_TRUE(flow.ok()) << flow.status();
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes(testing_support::FloodBudgetProbeOptions());
  ASSERT_TRUE(probes.ok()) << probes.status();

  absl::StatusOr<BackgroundProgram> tool = StartTool("/usr/sbin/softirqs");
  ASSERT_TRUE(tool.ok()) << tool.status();
  absl::StatusOr<testing_support::SoftirqReading> before = testing_support::ReadSoftirqs(**probes);
  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  // Ours is read once the tool's interval has ended: both windows then hold the same softirqs.
  absl::StatusOr<std::map<std::string, uint64_t>> tool_totals = FinishTool("softirqs", *tool);
  absl::StatusOr<testing_support::SoftirqReading> after = testing_support::ReadSoftirqs(**probes);
  ASSERT_TRUE(before.ok() && after.ok()) << before.status() << after.status();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(tool_totals.ok()) << tool_totals.status();

  const auto tool_ns = tool_totals->find("net_rx");
  ASSERT_NE(tool_ns, tool_totals->end()) << "softirqs printed no net_rx line";
  // The probes time the flood's softirqs in short slots; the agent scales the slots' mean (per
  // CPU, as its windows do) to every softirq /proc/softirqs counted.
  const model::SoftirqTimeEstimate probe =
      testing_support::VectorTime(*before, *after, kNetRxVector);
  ASSERT_GT(tool_ns->second, 10000000u) << "the flow raised less than 10 ms of NET_RX";
  // The comparison is of the duty-cycled figure: softirq_entry was attached for less than half
  // of the window (throughout would give 1) and timed a minority of the softirqs, so this cannot
  // pass by timing everything.
  EXPECT_LT(model::SoftirqTimedShare(before->bpf, after->bpf), 0.5)
      << model::SoftirqTimeSource(probe);
  EXPECT_LT(probe.timed * 4, probe.count)
      << probe.timed << " of " << probe.count << " NET_RX softirqs timed";
  // Both attach to the same two tracepoints, whose programs run in attach order, and ours attach
  // again at every slot, after the tool's: our span then holds the tool's exit program (atomic adds
  // to its arrays, 65 ns here by kernel.bpf_stats, plus its dispatch), while the tool's span holds
  // our entry program only for its softirqs in our slots, a few percent of them. So ours reads
  // higher by about one program per softirq, and by the error of scaling a few slots' mean to every
  // softirq. Measured per softirq of 0.55-0.7 us: +54 to +94 ns quiet; +4 to +222 ns over 11 runs
  // beside a busy loop on the other core (this test alone, `ctest -R NetRx` beside
  // `while :; do :; done`). The band allows 400 ns per softirq on top of the 10%, about twice the
  // worst seen, and still fails a slot mean scaled to twice the softirqs it stands for (+600 ns).
  const double tool_total = static_cast<double>(tool_ns->second);
  const double foreign_program_allowance = 400.0 * static_cast<double>(probe.count);
  const std::string what =
      absl::StrCat("sent ", result->sent.sent, " datagrams; ", model::SoftirqTimeSource(probe),
                   ", ", probe.timed, " of ", probe.count, " NET_RX softirqs timed; ours ",
                   probe.time_ns, " ns, softirqs ", tool_total, " ns");
  std::cout << "NET_RX: " << what << ": "
            << (probe.time_ns - tool_total) / static_cast<double>(probe.count)
            << " ns per softirq above\n";
  EXPECT_GE(probe.time_ns, 0.90 * tool_total) << what;
  EXPECT_LE(probe.time_ns, 1.10 * tool_total + foreign_program_allowance) << what;
}

}  // namespace
}  // namespace nictune
