// SOCKET_RCVBUFF drops seen by the probes equal the kernel's own Udp: RcvbufErrors, exactly.
//
// Why they must be equal: on receive, __udp_queue_rcv_skb() turns -ENOMEM from
// __udp_enqueue_schedule_skb() into one RcvbufErrors increment (and one InErrors increment) and
// one kfree_skb_reason(skb, SKB_DROP_REASON_SOCKET_RCVBUFF). What could make them differ, and how
// this test excludes it:
//  - Udp6 counts RcvbufErrors in /proc/net/snmp6, not Udp: IPv6 is off in the test hosts and the
//    flow is IPv4.
//  - InErrors also counts checksum and other errors: we compare RcvbufErrors, not InErrors.
//  - Another UDP socket in the namespace: there is none; the probes' side is also filtered to the
//    receiver's socket (cookie, else port), and the namespace is private to this test.
//  - Counting windows: both counters are read before the flow starts and after it has settled.
#include <netinet/in.h>

#include <string>

#include "absl/time/clock.h"
#include "agent/procfs/snmp.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/bpf/counter_sums.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::UdpFlow;
using testing_support::VethHosts;
using testing_support::WhyNotPrivileged;

absl::StatusOr<int64_t> UdpRcvbufErrors(const testing_support::NetworkNamespace& netns) {
  absl::StatusOr<std::string> text = netns.ReadProcNet("snmp");
  if (!text.ok()) return text.status();
  absl::StatusOr<procfs::SnmpCounters> snmp =
      procfs::ParseSnmp(*text, "/proc/net/snmp in netns " + netns.name());
  if (!snmp.ok()) return snmp.status();
  const auto udp = snmp->find("Udp");
  if (udp == snmp->end() || !udp->second.contains("RcvbufErrors")) {
    return absl::NotFoundError("/proc/net/snmp in netns " + netns.name() +
                               ": no Udp: RcvbufErrors");
  }
  return udp->second.at("RcvbufErrors");
}

TEST(DropsAccuracy, SocketRcvbuffDropsEqualUdpRcvbufErrorsOfTheReceivingNamespace) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // A small buffer and a receiver that reads 16 datagrams every 2 ms (8000/s) against a sender
  // that is flat out: most datagrams overflow the socket.
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(**hosts,
                    {.rcvbuf_bytes = 32768,
                     .batch = 16,
                     .drain_gap = absl::Milliseconds(2),
                     .run_time = absl::Seconds(5)},
                    {.packets = 100000, .payload_bytes = 64, .max_duration = absl::Seconds(3)});
  ASSERT_TRUE(flow.ok()) << flow.status();

  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes({});
  ASSERT_TRUE(probes.ok()) << probes.status();
  absl::StatusOr<testing_support::DeviceCounters> device_before =
      (*hosts)->b().ReadDeviceCounters((*hosts)->device_b());
  ASSERT_TRUE(device_before.ok()) << device_before.status();
  absl::StatusOr<int64_t> errors_before = UdpRcvbufErrors((*hosts)->b());
  ASSERT_TRUE(errors_before.ok()) << errors_before.status();
  absl::StatusOr<driver::BpfCounters> before = (*probes)->Read();
  ASSERT_TRUE(before.ok()) << before.status();

  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  ASSERT_TRUE(result.ok()) << result.status();
  // The last datagrams are received in softirq context after sendmmsg returned.
  absl::SleepFor(absl::Milliseconds(50));

  absl::StatusOr<driver::BpfCounters> after = (*probes)->Read();
  ASSERT_TRUE(after.ok()) << after.status();
  absl::StatusOr<int64_t> errors_after = UdpRcvbufErrors((*hosts)->b());
  ASSERT_TRUE(errors_after.ok()) << errors_after.status();

  const uint64_t cookie = flow->receiver().socket_cookie();
  const uint16_t port = flow->receiver().port();
  const uint64_t probe_drops = bpf_tests::UdpDropsFor(*after, "SOCKET_RCVBUFF", cookie, port) -
                               bpf_tests::UdpDropsFor(*before, "SOCKET_RCVBUFF", cookie, port);
  const auto kernel_drops = static_cast<uint64_t>(*errors_after - *errors_before);

  ASSERT_GT(kernel_drops, 10000u) << "the flow did not overflow the socket; sent "
                                  << result->sent.sent << ", received "
                                  << result->received.received;
  EXPECT_EQ(probe_drops, kernel_drops);
  // The socket's own drop counter (SK_MEMINFO_DROPS) saw the same drops.
  EXPECT_EQ(result->received.kernel_drops, kernel_drops);
  // Every datagram that reached b's veth was read, dropped for rcvbuf, or is still queued.
  absl::StatusOr<testing_support::QueuedMemory> queued = flow->receiver().MeasureQueuedAndDrain();
  ASSERT_TRUE(queued.ok()) << queued.status();
  absl::StatusOr<testing_support::DeviceCounters> device_after =
      (*hosts)->b().ReadDeviceCounters((*hosts)->device_b());
  ASSERT_TRUE(device_after.ok()) << device_after.status();
  EXPECT_EQ(result->received.received + kernel_drops + queued->queued_datagrams,
            device_after->rx_packets - device_before->rx_packets);
}

}  // namespace
}  // namespace nictune
