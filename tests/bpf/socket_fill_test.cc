// SPDX-License-Identifier: Apache-2.0
// A slow receiver's socket: the probes' fill high-water reaches at least 0.9 while drops occur,
// and their truesize per datagram agrees with what the kernel charged the socket.
//
// The kernel's side is measured by the receiver itself, in a quiet state: after the flow the
// queue is drained completely (so UDP's deferred memory release, forward_deficit, has returned
// everything and rmem_alloc is 0), then a few datagrams of the same size are sent and left
// queued; SO_MEMINFO's SK_MEMINFO_RMEM_ALLOC divided by that count is the truesize charged per
// datagram. (During the flow rmem_alloc / queue length is not exact: memory of read datagrams is
// released in chunks of rcvbuf/4.)
#include <cstdint>

#include "absl/time/clock.h"
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

TEST(SocketFill, SlowReceiverPeaksAboveNinetyPercentAndTruesizeMatchesTheKernelsCharge) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // 64 KiB requested (128 KiB granted) drained 32 datagrams every 5 ms: full within a gap.
  absl::StatusOr<UdpFlow> flow =
      UdpFlow::Open(**hosts,
                    {.rcvbuf_bytes = 65536,
                     .batch = 32,
                     .drain_gap = absl::Milliseconds(5),
                     .run_time = absl::Seconds(5)},
                    {.packets = 100000, .payload_bytes = 64, .max_duration = absl::Seconds(3)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  // Socket fill is a per-packet probe: off unless asked for.
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes({.per_packet_probes = true});
  ASSERT_TRUE(probes.ok()) << probes.status();

  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  ASSERT_TRUE(result.ok()) << result.status();
  absl::SleepFor(absl::Milliseconds(50));  // the last datagrams land after sendmmsg returns
  absl::StatusOr<testing_support::QueuedMemory> left = flow->receiver().MeasureQueuedAndDrain();
  ASSERT_TRUE(left.ok()) << left.status();
  constexpr uint64_t kQuietDatagrams = 20;
  absl::StatusOr<std::unique_ptr<testing_support::UdpSender>> quiet_sender =
      absl::InternalError("not created");
  ASSERT_TRUE((*hosts)
                  ->a()
                  .RunInside([&] {
                    quiet_sender =
                        testing_support::UdpSender::Create({.destination = (*hosts)->address_b(),
                                                            .port = flow->receiver().port(),
                                                            .packets = kQuietDatagrams,
                                                            .payload_bytes = 64,
                                                            .batch = 1});
                  })
                  .ok());
  ASSERT_TRUE(quiet_sender.ok()) << quiet_sender.status();
  absl::StatusOr<testing_support::UdpSenderReport> quiet_sent = (*quiet_sender)->Run();
  ASSERT_TRUE(quiet_sent.ok()) << quiet_sent.status();
  absl::SleepFor(absl::Milliseconds(20));
  absl::StatusOr<testing_support::QueuedMemory> kernel = flow->receiver().MeasureQueuedAndDrain();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  ASSERT_EQ(kernel->queued_datagrams, kQuietDatagrams);
  absl::StatusOr<driver::BpfCounters> counters = (*probes)->Read();
  ASSERT_TRUE(counters.ok()) << counters.status();

  ASSERT_GT(result->received.kernel_drops, 0u) << "the receiver never overflowed";
  ASSERT_GT(kernel->queued_datagrams, 0u);
  // The receiver's own SO_MEMINFO before each batch shows the socket filling, as the probe must.
  const double receiver_peak_fill =
      static_cast<double>(result->received.peak_rmem_alloc) / static_cast<double>(kernel->rcvbuf);
  EXPECT_GE(receiver_peak_fill, 0.9) << "the socket never filled; the test flow is too slow";

  const driver::SocketFill* fill =
      bpf_tests::SocketFillFor(*counters, flow->receiver().socket_cookie());
  ASSERT_NE(fill, nullptr) << "no socket fill entry for cookie " << flow->receiver().socket_cookie()
                           << " (port " << flow->receiver().port() << ")";
  EXPECT_EQ(fill->key.local_port, flow->receiver().port());
  EXPECT_EQ(fill->rcvbuf, kernel->rcvbuf);
  EXPECT_GE(fill->peak_fill, 0.9) << "peak rmem_alloc " << fill->peak_rmem_alloc;
  EXPECT_LE(fill->peak_rmem_alloc, kernel->rcvbuf + 4096u)
      << "UDP admits one datagram past rcvbuf at most";

  ASSERT_GT(fill->truesize_samples, 0u);
  const double probe_truesize =
      static_cast<double>(fill->truesize_sum) / static_cast<double>(fill->truesize_samples);
  const double kernel_truesize =
      static_cast<double>(kernel->rmem_alloc) / static_cast<double>(kernel->queued_datagrams);
  // Every datagram of this flow has the same size, so every skb has the same truesize. The probe
  // estimates it at each enqueue from rmem_alloc and the queue; 5% leaves room for the chunked
  // release above, not for counting the wrong queue.
  EXPECT_NEAR(probe_truesize, kernel_truesize, 0.05 * kernel_truesize)
      << "probe " << probe_truesize << " B over " << fill->truesize_samples << " samples; kernel "
      << kernel->rmem_alloc << " B / " << kernel->queued_datagrams << " datagrams";
}

}  // namespace
}  // namespace nictune
