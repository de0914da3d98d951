// The softirq probe counts every softirq exactly and times a sample of them
// (driver/bpf/softirq.bpf.c): its NET_RX counts equal /proc/softirqs' over the same window, a
// veth flood is sampled while a slow flow is timed whole, and the scaled estimate
// (agent/model/softirq_time.h) matches a second probe set that times every softirq, within 3%
// and the other set's program runs.
#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/model/softirq_time.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/softirqs.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::UdpFlow;
using testing_support::VethHosts;
using testing_support::WhyNotPrivileged;

constexpr uint32_t kNetRxVector = 3;  // NET_RX_SOFTIRQ

absl::StatusOr<uint64_t> ProcNetRxTotal() {
  absl::StatusOr<std::string> text = procfs::ReadFile("/proc/softirqs");
  if (!text.ok()) return text.status();
  absl::StatusOr<procfs::SoftirqTable> table = procfs::ParseSoftirqs(*text);
  if (!table.ok()) return table.status();
  for (const procfs::SoftirqRow& row : table->rows) {
    if (row.vector != "NET_RX") continue;
    uint64_t total = 0;
    for (uint64_t count : row.per_cpu) total += count;
    return total;
  }
  return absl::NotFoundError("/proc/softirqs: no NET_RX row");
}

// NET_RX over all CPUs between two readings, as the agent's window scales it.
model::SoftirqTimeEstimate NetRxEstimate(const driver::BpfCounters& before,
                                         const driver::BpfCounters& after) {
  return model::VectorSoftirqTime(before, after, kNetRxVector);
}

std::string Describe(const model::SoftirqTimeEstimate& e) {
  return absl::StrCat("count ", e.count, ", timed ", e.timed, ", weight ", e.timed_weight,
                      ", time ", e.time_ns, " ns (", model::SoftirqTimeSource(e), ")");
}

TEST(SoftirqSampling, AFloodIsCountedExactlyAndTimedFromASampleThatAgreesWithTimingEverySoftirq) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(**hosts, {.rcvbuf_bytes = 1 << 20, .batch = 256, .run_time = absl::Seconds(5)},
                    {.packets = 600000, .payload_bytes = 64, .max_duration = absl::Seconds(2)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> sampled = driver::OpenBpfProbes({});
  ASSERT_TRUE(sampled.ok()) << sampled.status();
  driver::ProbeOptions every_softirq;
  every_softirq.softirq_max_sample_shift = 0;
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> exact = driver::OpenBpfProbes(every_softirq);
  ASSERT_TRUE(exact.ok()) << exact.status();

  // /proc/softirqs is read outside the probes' reads, so its window contains theirs.
  absl::StatusOr<uint64_t> proc_before = ProcNetRxTotal();
  absl::StatusOr<driver::BpfCounters> sampled_before = (*sampled)->Read();
  absl::StatusOr<driver::BpfCounters> exact_before = (*exact)->Read();
  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  absl::SleepFor(absl::Milliseconds(50));  // let the last softirqs finish
  absl::StatusOr<driver::BpfCounters> exact_after = (*exact)->Read();
  absl::StatusOr<driver::BpfCounters> sampled_after = (*sampled)->Read();
  absl::StatusOr<uint64_t> proc_after = ProcNetRxTotal();
  ASSERT_TRUE(proc_before.ok() && proc_after.ok()) << proc_before.status() << proc_after.status();
  ASSERT_TRUE(sampled_before.ok() && sampled_after.ok() && exact_before.ok() && exact_after.ok());
  ASSERT_TRUE(result.ok()) << result.status();

  const model::SoftirqTimeEstimate flood = NetRxEstimate(*sampled_before, *sampled_after);
  const model::SoftirqTimeEstimate whole = NetRxEstimate(*exact_before, *exact_after);
  const uint64_t proc = *proc_after - *proc_before;
  ASSERT_GT(flood.count, 100000u) << "sent " << result->sent.sent << "; " << Describe(flood);
  // Counted exactly: the few softirqs between the reads of /proc and of the probes aside.
  EXPECT_LE(flood.count, proc);
  EXPECT_LE(proc - flood.count, 50u + proc / 1000) << "proc " << proc << "; " << Describe(flood);
  // Sampled: the rate is far above 10000 softirqs/s per CPU, so after the first 0.1 s at most
  // one in 8 is timed (weight / timed would be 1 if every softirq were timed).
  EXPECT_TRUE(flood.sampled) << Describe(flood);
  EXPECT_GE(model::SoftirqSampleEvery(flood), 4.0) << Describe(flood);
  EXPECT_FALSE(whole.sampled) << Describe(whole);
  // The two probe sets see the same softirqs, and programs run in attach order: the sampled
  // set's span holds the other set's entry program (with its clock read), the other's span only
  // the sampled set's exit (mostly without one). So the sampled figure reads higher by about the
  // difference, measured 57-64 ns per softirq of about 1.2 us here; 100 ns is allowed for it.
  // Below, only the sample's own error: 3%.
  const double foreign_program_allowance = 100.0 * static_cast<double>(flood.count);
  EXPECT_GE(flood.time_ns, 0.97 * whole.time_ns)
      << "sampled: " << Describe(flood) << "; every softirq: " << Describe(whole);
  EXPECT_LE(flood.time_ns, 1.03 * whole.time_ns + foreign_program_allowance)
      << "sampled: " << Describe(flood) << "; every softirq: " << Describe(whole);
}

TEST(SoftirqSampling, ASlowFlowHasEverySoftirqTimed) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // 2000 datagrams/s, one per sendmmsg: about 2000 NET_RX softirqs/s, below the 10000/s per CPU
  // above which the probe samples.
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(**hosts, {.rcvbuf_bytes = 1 << 20, .batch = 1, .run_time = absl::Seconds(5)},
                    {.packets = 3000,
                     .payload_bytes = 64,
                     .packets_per_second = 2000,
                     .batch = 1,
                     .max_duration = absl::Seconds(3)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes({});
  ASSERT_TRUE(probes.ok()) << probes.status();
  absl::StatusOr<driver::BpfCounters> before = (*probes)->Read();
  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  absl::SleepFor(absl::Milliseconds(50));
  absl::StatusOr<driver::BpfCounters> after = (*probes)->Read();
  ASSERT_TRUE(before.ok() && after.ok()) << before.status() << after.status();
  ASSERT_TRUE(result.ok()) << result.status();

  const model::SoftirqTimeEstimate slow = NetRxEstimate(*before, *after);
  ASSERT_GE(slow.count, 3000u) << "sent " << result->sent.sent << "; " << Describe(slow);
  EXPECT_FALSE(slow.sampled) << Describe(slow);
  EXPECT_EQ(slow.timed_weight, slow.timed) << Describe(slow);
  // Only a softirq running at a read escapes its timing.
  EXPECT_LE(slow.count - slow.timed, 4u) << Describe(slow);
  EXPECT_EQ(model::SoftirqTimeSource(slow), "bpf");
}

}  // namespace
}  // namespace nictune
