// SPDX-License-Identifier: Apache-2.0
// A gated hook (driver/bpf/duty_hook.h) on the real kernel: its kfree_skb program stays attached,
// counts every drop of a drop flood whether its gate is open or not, and adds to its drop map only
// while the gate is open; opening and closing the gate makes no link operation, and its measured
// time grows only while it is open. The test's namespace goes even when it fails.
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "driver/bpf/drop_key_aging.h"
#include "driver/bpf/duty_hook.h"
#include "driver/bpf/probes.h"
#include "gtest/gtest.h"
#include "tests/bpf/counter_sums.h"
#include "tests/bpf/namespace_snmp.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using bpf_tests::UdpRcvbufErrors;
using driver::bpf::DutyHook;
using testing_support::UdpFlow;
using testing_support::VethHosts;

// The hook's counted events, the drops its map holds for the receiver, the kernel's own count,
// and the hook's measured and counted time: cumulative as read, or over a span (Between).
struct Counts {
  double events = 0;
  double mapped_drops = 0;
  double rcvbuf_errors = 0;
  double measured_s = 0;
  double counted_s = 0;
};

class GatedHookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  }

  absl::StatusOr<Counts> Read(const driver::bpf::LoadedProbe& probe, const DutyHook& hook,
                              const VethHosts& hosts, UdpFlow& flow) {
    driver::BpfCounters counters;
    const uint64_t now = driver::bpf::MonotonicNs();
    if (absl::Status read = driver::bpf::ReadDropsProbe(probe, nullptr, aging_, now, counters);
        !read.ok()) {
      return read;
    }
    const uint64_t events = hook.Events();
    absl::StatusOr<int64_t> errors = UdpRcvbufErrors(hosts.b());
    if (!errors.ok()) return errors.status();
    uint64_t mapped = 0;
    for (const driver::DropCounter& drop : counters.drops) {
      const bool ours = drop.socket_cookie != 0
                            ? drop.socket_cookie == flow.receiver().socket_cookie()
                            : drop.local_port == flow.receiver().port();
      if (ours) mapped += drop.count;
    }
    return Counts{.events = static_cast<double>(events),
                  .mapped_drops = static_cast<double>(mapped),
                  .rcvbuf_errors = static_cast<double>(*errors),
                  .measured_s = static_cast<double>(hook.AttachedNs(now)) / 1e9,
                  .counted_s = static_cast<double>(hook.CountedNs(now)) / 1e9};
  }

  static Counts Between(const Counts& a, const Counts& b) {
    return Counts{.events = b.events - a.events,
                  .mapped_drops = b.mapped_drops - a.mapped_drops,
                  .rcvbuf_errors = b.rcvbuf_errors - a.rcvbuf_errors,
                  .measured_s = b.measured_s - a.measured_s,
                  .counted_s = b.counted_s - a.counted_s};
  }

  driver::bpf::DropKeyAging aging_{NICTUNE_DROP_MAX_KEYS, {}};
};

TEST_F(GatedHookTest, AClosedGateCountsEveryDropAndMapsNoneAndOpeningItMakesNoLinkOperation) {
  // Gated, then by links: attached with the gate closed, it measures from Open on.
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // Flat out for 5 s into a receiver that reads 16 datagrams every 2 ms: drops throughout.
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(**hosts,
                    {.rcvbuf_bytes = 32768,
                     .batch = 16,
                     .drain_gap = absl::Milliseconds(2),
                     .run_time = absl::Seconds(6)},
                    {.packets = 1ull << 40, .payload_bytes = 64, .max_duration = absl::Seconds(5)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  std::unique_ptr<driver::bpf::LoadedProbe> probe = driver::bpf::LoadDropsProbe();
  ASSERT_TRUE(probe->attached()) << probe->status().reason;
  absl::StatusOr<std::unique_ptr<DutyHook>> hook =
      DutyHook::TakeOver(*probe, {.name = "drops"}, nullptr);
  ASSERT_TRUE(hook.ok()) << hook.status();
  ASSERT_TRUE((*hook)->gateable());
  // Attached whole by the load, it measures until DetachStarts closes its gate.
  ASSERT_TRUE((*hook)->SetGated(true).ok());
  EXPECT_TRUE((*hook)->attached());
  (*hook)->DetachStarts();
  EXPECT_FALSE((*hook)->attached());
  const driver::bpf::LinkStats links_gated = (*hook)->link_stats();

  absl::StatusOr<testing_support::UdpFlowResult> result;
  std::thread flooding([&] { result = flow->Run(); });
  absl::SleepFor(absl::Milliseconds(300));
  const auto read = [&] { return Read(*probe, **hook, **hosts, *flow); };
  absl::StatusOr<Counts> closed_start = read();
  absl::SleepFor(absl::Seconds(1));
  absl::StatusOr<Counts> closed_end = read();
  const absl::Status opened = (*hook)->Attach();
  absl::StatusOr<Counts> open_start = read();
  absl::SleepFor(absl::Seconds(1));
  absl::StatusOr<Counts> open_end = read();
  (*hook)->DetachStarts();
  const driver::bpf::LinkStats links_after = (*hook)->link_stats();
  const bool attached_closed = (*hook)->attached();
  // Not gated again with its gate closed: its links go. By links, as a slot: attached with the
  // gate closed, it counts and maps nothing and measures no time until Open.
  const absl::Status ungated = (*hook)->SetGated(false);
  const bool attached_ungated = (*hook)->attached();
  const uint64_t detaches_ungated = (*hook)->link_stats().detaches;
  const absl::Status linked = (*hook)->Attach();
  absl::StatusOr<Counts> linked_start = read();
  absl::SleepFor(absl::Milliseconds(500));
  absl::StatusOr<Counts> linked_end = read();
  const bool measuring_before_open = (*hook)->MeasuringNow().has_value();
  const absl::Status opened_by_links = (*hook)->Open(1);
  absl::StatusOr<Counts> by_links_start = read();
  absl::SleepFor(absl::Milliseconds(500));
  absl::StatusOr<Counts> by_links_end = read();
  (*hook)->DetachStarts();
  flooding.join();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(opened.ok()) << opened;
  ASSERT_TRUE(ungated.ok()) << ungated;
  ASSERT_TRUE(linked.ok()) << linked;
  ASSERT_TRUE(opened_by_links.ok()) << opened_by_links;
  for (const auto* reading : {&closed_start, &closed_end, &open_start, &open_end, &linked_start,
                              &linked_end, &by_links_start, &by_links_end}) {
    ASSERT_TRUE(reading->ok()) << reading->status();
  }
  const Counts closed = Between(*closed_start, *closed_end);
  const Counts open = Between(*open_start, *open_end);
  std::cout << absl::StrFormat(
      "gate closed: %.0f events, %.0f mapped, %.0f RcvbufErrors, measured %.3f s, counted %.3f s\n"
      "gate open:   %.0f events, %.0f mapped, %.0f RcvbufErrors, measured %.3f s, counted %.3f s\n",
      closed.events, closed.mapped_drops, closed.rcvbuf_errors, closed.measured_s, closed.counted_s,
      open.events, open.mapped_drops, open.rcvbuf_errors, open.measured_s, open.counted_s);

  ASSERT_GT(closed.rcvbuf_errors, 10000) << "the receiver kept up";
  // Closed: every drop counted (the host's other drops besides), none in the map, no time measured.
  // (The two counters are read a few syscalls apart: a little slack either way.)
  EXPECT_GE(closed.events, 0.99 * closed.rcvbuf_errors - 100);
  EXPECT_LE(closed.events, 1.01 * closed.rcvbuf_errors + 100);
  EXPECT_EQ(closed.mapped_drops, 0);
  EXPECT_EQ(closed.measured_s, 0);
  EXPECT_NEAR(closed.counted_s, 1, 0.1);
  // Open: the map holds the socket's drops as the kernel counts them.
  ASSERT_GT(open.rcvbuf_errors, 10000) << "the flood ended or the receiver kept up";
  EXPECT_NEAR(open.mapped_drops, open.rcvbuf_errors, 0.01 * open.rcvbuf_errors + 100);
  EXPECT_NEAR(open.measured_s, 1, 0.1);
  EXPECT_NEAR(open.counted_s, 1, 0.1);
  // The gate opened once and closed, and no link was attached or detached for it.
  EXPECT_EQ(links_after.attaches, links_gated.attaches);
  EXPECT_EQ(links_after.detaches, links_gated.detaches);
  EXPECT_EQ(links_after.gate_opens, links_gated.gate_opens + 1);
  EXPECT_FALSE(attached_closed);

  EXPECT_FALSE(attached_ungated);
  EXPECT_EQ(detaches_ungated, links_after.detaches + 1);
  const Counts unopened = Between(*linked_start, *linked_end);
  EXPECT_FALSE(measuring_before_open);
  EXPECT_GT(unopened.events, 0);
  EXPECT_EQ(unopened.mapped_drops, 0);
  EXPECT_EQ(unopened.measured_s, 0);
  const Counts by_links = Between(*by_links_start, *by_links_end);
  ASSERT_GT(by_links.rcvbuf_errors, 1000) << "the flood ended or the receiver kept up";
  EXPECT_NEAR(by_links.mapped_drops, by_links.rcvbuf_errors, 0.01 * by_links.rcvbuf_errors + 100);
  EXPECT_NEAR(by_links.measured_s, 0.5, 0.05);
  EXPECT_FALSE((*hook)->measuring());
}

}  // namespace
}  // namespace nictune
