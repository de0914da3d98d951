// The work the NAPI probe sums for the receiving veth equals that veth's rx_packets delta.
//
// veth delivers through NAPI when the test hosts enable it (GRO on b, TSO off on a; see
// VethHostsOptions): each skb then goes through b's ptr_ring, veth_poll() reports it in `work`
// (napi:napi_poll) and adds it to the queue's xdp_packets, which /proc/net/dev shows as
// rx_packets. IPv6 is off in the test hosts, so no other traffic crosses the pair.
#include <string>

#include "absl/time/clock.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/bpf/counter_sums.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::DeviceCounters;
using testing_support::UdpFlow;
using testing_support::VethHosts;
using testing_support::WhyNotPrivileged;

TEST(NapiAccuracy, WorkOnTheReceivingVethEqualsItsRxPacketsWithinOnePercent) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({.napi_on_b = true});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(**hosts, {.rcvbuf_bytes = 1 << 20, .batch = 256, .run_time = absl::Seconds(5)},
                    {.packets = 200000, .payload_bytes = 64, .max_duration = absl::Seconds(3)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes({});
  ASSERT_TRUE(probes.ok()) << probes.status();

  // rx_packets is added at the end of each poll, before the napi_poll tracepoint fires: reading
  // the device outside the probes' reads keeps each poll on the same side of both windows.
  absl::StatusOr<DeviceCounters> device_before =
      (*hosts)->b().ReadDeviceCounters((*hosts)->device_b());
  ASSERT_TRUE(device_before.ok()) << device_before.status();
  absl::StatusOr<driver::BpfCounters> before = (*probes)->Read();
  ASSERT_TRUE(before.ok()) << before.status();

  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  ASSERT_TRUE(result.ok()) << result.status();
  absl::SleepFor(absl::Milliseconds(50));  // let the last softirq polls finish

  absl::StatusOr<driver::BpfCounters> after = (*probes)->Read();
  ASSERT_TRUE(after.ok()) << after.status();
  absl::StatusOr<DeviceCounters> device_after =
      (*hosts)->b().ReadDeviceCounters((*hosts)->device_b());
  ASSERT_TRUE(device_after.ok()) << device_after.status();

  const bpf_tests::NapiTotals napi_before = bpf_tests::NapiTotalsFor(*before, (*hosts)->device_b());
  const bpf_tests::NapiTotals napi_after = bpf_tests::NapiTotalsFor(*after, (*hosts)->device_b());
  const uint64_t work = napi_after.work - napi_before.work;
  const uint64_t polls = napi_after.polls - napi_before.polls;
  const uint64_t rx_packets = device_after->rx_packets - device_before->rx_packets;

  ASSERT_GT(rx_packets, 100000u) << "sent " << result->sent.sent;
  ASSERT_GT(polls, 0u) << "no napi_poll for " << (*hosts)->device_b()
                       << ": veth did not deliver through NAPI";
  EXPECT_NEAR(static_cast<double>(work), static_cast<double>(rx_packets),
              0.01 * static_cast<double>(rx_packets))
      << "polls " << polls << ", work " << work << ", rx_packets " << rx_packets;
  // veth's poll never reports more than its budget.
  EXPECT_LE(work, polls * 64);
}

}  // namespace
}  // namespace nictune
