// SPDX-License-Identifier: Apache-2.0
// The drain gap on the real kernel (driver/bpf/sockfill.bpf.c): how long a socket's data waits
// for its reader. A reader that sleeps between batches leaves data waiting at least as long as its
// sleep, and never longer than the time between two of its reads. A wait begun before the hook
// stopped measuring (its gate closed, or its links detached) is not ended by a read after it
// measures again: the reads in between went unseen. The test's namespaces go even when it fails.
#include <poll.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "driver/bpf/duty_hook.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/tracepoint_arguments.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/bpf/counter_sums.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_flow.h"
#include "tests/support/udp_receiver.h"
#include "tests/support/udp_sender.h"

namespace nictune {
namespace {

using driver::bpf::DutyHook;
using testing_support::UdpFlow;
using testing_support::UdpReceiver;
using testing_support::VethHosts;

class DrainGapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
    if (!driver::bpf::TracepointArguments("sock_recv_length").has_value())
      GTEST_SKIP() << "the kernel has no sock:sock_recv_length (6.4 on)";
  }
};

TEST_F(DrainGapTest, IsAtLeastTheReadersSleepAndAtMostItsLongestTimeBetweenReads) {
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // Flat out for 1 s into 128 KiB read 32 datagrams every 20 ms: data waits through every sleep.
  constexpr absl::Duration kSleep = absl::Milliseconds(20);
  absl::StatusOr<UdpFlow> flow = UdpFlow::Open(
      **hosts,
      {.rcvbuf_bytes = 65536, .batch = 32, .drain_gap = kSleep, .run_time = absl::Seconds(2)},
      {.packets = 50000, .payload_bytes = 64, .max_duration = absl::Seconds(1)});
  ASSERT_TRUE(flow.ok()) << flow.status();
  // Every hook whole: this test holds the pairing, not the probe budget's sampling.
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes({.per_packet_probes = true, .budget_cpu_share = std::nullopt});
  ASSERT_TRUE(probes.ok()) << probes.status();
  const auto flow_began = std::chrono::steady_clock::now();
  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  ASSERT_TRUE(result.ok()) << result.status();
  absl::StatusOr<driver::BpfCounters> counters = (*probes)->Read();
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_TRUE(counters->drain_gap_timed) << "the read handler is loaded on this kernel";

  ASSERT_GT(result->received.kernel_drops, 0u) << "the socket never filled";
  const driver::SocketFill* fill =
      bpf_tests::SocketFillFor(*counters, flow->receiver().socket_cookie());
  ASSERT_NE(fill, nullptr) << "no socket fill entry for port " << flow->receiver().port();
  // No wait is longer than the time from one batch's read starting to the next one's end, nor
  // the first longer than from the flow's start to the first batch's end: the probe's read
  // times lie within the reader's system calls. 1 ms for the clocks' reads.
  const absl::Duration first_wait_bound =
      absl::FromChrono(result->received.first_read_ended - flow_began);
  const absl::Duration bound =
      std::max(result->received.longest_between_reads, first_wait_bound) + absl::Milliseconds(1);
  std::cout << absl::StrFormat(
      "longest drain gap %.3f ms over %d waits; the reader: %d batches, %.3f ms at most between "
      "two, the first batch %.3f ms after the flow began\n",
      static_cast<double>(fill->longest_drain_gap_ns) * 1e-6, fill->drain_waits_ended,
      result->received.batches, absl::ToDoubleMilliseconds(result->received.longest_between_reads),
      absl::ToDoubleMilliseconds(first_wait_bound));
  EXPECT_GE(fill->drain_waits_ended, result->received.batches / 2)
      << "most batches end a wait: " << result->received.batches << " batches";
  EXPECT_GE(fill->longest_drain_gap_ns, absl::ToInt64Nanoseconds(kSleep));
  EXPECT_LE(fill->longest_drain_gap_ns, absl::ToInt64Nanoseconds(bound));
}

// A receiver in b that the test reads by hand, and datagrams sent to it from a.
class HandReadSocket {
 public:
  static absl::StatusOr<std::unique_ptr<HandReadSocket>> Open(const VethHosts& hosts) {
    absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver = absl::InternalError("not created");
    absl::Status inside = hosts.b().RunInside([&] {
      receiver = UdpReceiver::Create({.bind_address = hosts.address_b(), .rcvbuf_bytes = 1 << 20});
    });
    if (!inside.ok()) return inside;
    if (!receiver.ok()) return receiver.status();
    return std::unique_ptr<HandReadSocket>(new HandReadSocket(hosts, *std::move(receiver)));
  }

  absl::Status Send(uint64_t datagrams) {
    absl::StatusOr<std::unique_ptr<testing_support::UdpSender>> sender =
        absl::InternalError("not created");
    absl::Status inside = hosts_.a().RunInside([&] {
      sender = testing_support::UdpSender::Create({.destination = hosts_.address_b(),
                                                   .port = receiver_->port(),
                                                   .packets = datagrams,
                                                   .payload_bytes = 64,
                                                   .batch = 1});
    });
    if (!inside.ok()) return inside;
    if (!sender.ok()) return sender.status();
    absl::StatusOr<testing_support::UdpSenderReport> sent = (*sender)->Run();
    if (!sent.ok()) return sent.status();
    return WaitForData();
  }

  // Reads until `datagrams` were read, whenever the veth's softirq delivers them.
  absl::Status DrainExactly(uint64_t datagrams) {
    uint64_t read = 0;
    const absl::Time deadline = absl::Now() + kDelivery;
    while (read < datagrams && absl::Now() < deadline) {
      absl::StatusOr<testing_support::QueuedMemory> drained = receiver_->MeasureQueuedAndDrain();
      if (!drained.ok()) return drained.status();
      read += drained->queued_datagrams;
      if (read < datagrams) absl::SleepFor(absl::Milliseconds(1));
    }
    if (read == datagrams) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("read ", read, " datagrams of the ", datagrams, " sent"));
  }

  uint64_t cookie() const { return receiver_->socket_cookie(); }

 private:
  // How long the veth's softirq may take to deliver on a loaded machine.
  static constexpr absl::Duration kDelivery = absl::Seconds(2);

  // Returns once data is queued (a wait has begun), or fails after kDelivery.
  absl::Status WaitForData() {
    pollfd readable{.fd = receiver_->fd(), .events = POLLIN, .revents = 0};
    const int ready = poll(&readable, 1, static_cast<int>(absl::ToInt64Milliseconds(kDelivery)));
    if (ready == 1) return absl::OkStatus();
    return absl::InternalError(ready == 0 ? "nothing delivered within 2 s" : "poll failed");
  }

  HandReadSocket(const VethHosts& hosts, std::unique_ptr<UdpReceiver> receiver)
      : hosts_(hosts), receiver_(std::move(receiver)) {}
  const VethHosts& hosts_;
  std::unique_ptr<UdpReceiver> receiver_;
};

// The socket-fill probe, every socket tracked from its first datagram, its handlers taken over
// by a hook the test attaches and detaches (no schedule).
struct SockfillHook {
  std::unique_ptr<driver::bpf::LoadedProbe> probe;
  std::unique_ptr<DutyHook> hook;
};
absl::StatusOr<SockfillHook> TakeOverSockfill() {
  std::unique_ptr<driver::bpf::LoadedProbe> probe =
      driver::bpf::LoadSockfillProbe({.socket_fill_threshold_pct = 0});
  if (!probe->attached()) return absl::InternalError(probe->status().reason);
  absl::StatusOr<std::unique_ptr<DutyHook>> hook =
      DutyHook::TakeOver(*probe, {.name = "sockfill"}, nullptr);
  if (!hook.ok()) return hook.status();
  return SockfillHook{.probe = std::move(probe), .hook = *std::move(hook)};
}

// As a slot does: attached, then opened (a hook with a gate measures from its opening).
absl::Status Measure(DutyHook& hook) {
  if (absl::Status attached = hook.Attach(); !attached.ok()) return attached;
  return hook.Open(1);
}

// The socket's open wait in `counters`; nullopt when they failed or lack the socket.
std::optional<uint64_t> OpenWaitOf(const absl::StatusOr<driver::BpfCounters>& counters,
                                   const HandReadSocket& socket) {
  if (!counters.ok()) return std::nullopt;
  const driver::SocketFill* fill = bpf_tests::SocketFillFor(*counters, socket.cookie());
  if (fill == nullptr) return std::nullopt;
  return fill->open_drain_wait_ns;
}

// Two datagrams left unread 300 ms are a wait still open as `read` reports it: at least 300 ms,
// at most the time since the send; none once the reader has read them.
void ExpectAnOpenWaitUntilRead(HandReadSocket& socket,
                               const std::function<absl::StatusOr<driver::BpfCounters>()>& read) {
  constexpr absl::Duration kUnread = absl::Milliseconds(300);
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(socket.Send(2).ok());  // a wait begins once the first is queued
  absl::SleepFor(kUnread);
  const std::optional<uint64_t> open = OpenWaitOf(read(), socket);
  const absl::Duration bound = absl::FromChrono(std::chrono::steady_clock::now() - sent);
  ASSERT_TRUE(open.has_value()) << "not measuring, or no socket fill entry";
  EXPECT_GE(*open, absl::ToInt64Nanoseconds(kUnread));
  EXPECT_LE(*open, absl::ToInt64Nanoseconds(bound)) << "longer than since the first send";
  ASSERT_TRUE(socket.DrainExactly(2).ok());
  EXPECT_EQ(OpenWaitOf(read(), socket), 0u) << "still open after the read";
}

// Data waits 1 s while the hook does not measure, then 50 ms while it does: the longest gap is
// the second wait, not the first.
void ExpectAWaitAcrossAPauseUnmeasured(DutyHook& hook, driver::bpf::LoadedProbe& probe,
                                       HandReadSocket& socket) {
  constexpr absl::Duration kUnseen = absl::Seconds(1);
  constexpr absl::Duration kSeen = absl::Milliseconds(50);
  ASSERT_TRUE(Measure(hook).ok());
  ASSERT_TRUE(socket.Send(3).ok());  // a wait begins, measured
  hook.DetachStarts();
  hook.DetachEnds();
  const absl::Status unseen_read = socket.DrainExactly(3);  // ends it, unseen
  ASSERT_TRUE(unseen_read.ok()) << unseen_read;
  ASSERT_TRUE(socket.Send(1).ok());  // another begins, unseen
  absl::SleepFor(kUnseen);
  ASSERT_TRUE(Measure(hook).ok());
  ASSERT_TRUE(socket.DrainExactly(1).ok());  // seen: it must not end the first wait
  ASSERT_TRUE(socket.Send(1).ok());
  absl::SleepFor(kSeen);
  ASSERT_TRUE(socket.DrainExactly(1).ok());  // ends a wait of kSeen and a little

  driver::BpfCounters counters;
  ASSERT_TRUE(driver::bpf::ReadSockfillProbe(probe, hook.MeasuringNow(), counters).ok());
  const driver::SocketFill* fill = bpf_tests::SocketFillFor(counters, socket.cookie());
  ASSERT_NE(fill, nullptr);
  EXPECT_GE(fill->longest_drain_gap_ns, absl::ToInt64Nanoseconds(kSeen));
  EXPECT_LT(fill->longest_drain_gap_ns, absl::ToInt64Nanoseconds(kUnseen))
      << "a read after the pause ended a wait begun before it";
}

TEST_F(DrainGapTest, AWaitBegunBeforeTheHookPausedIsNotEndedByAReadAfterIt) {
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  for (const bool gated : {true, false}) {
    SCOPED_TRACE(gated ? "paused by its gate" : "paused by detaching its links");
    absl::StatusOr<std::unique_ptr<HandReadSocket>> socket = HandReadSocket::Open(**hosts);
    ASSERT_TRUE(socket.ok()) << socket.status();
    absl::StatusOr<SockfillHook> sockfill = TakeOverSockfill();
    ASSERT_TRUE(sockfill.ok()) << sockfill.status();
    ASSERT_TRUE(sockfill->hook->SetGated(gated).ok());
    ExpectAWaitAcrossAPauseUnmeasured(*sockfill->hook, *sockfill->probe, **socket);
    sockfill->hook->DetachStarts();
    sockfill->hook->DetachEnds();
  }
}

// Data left unread is a wait still open at a read of the map: reported as long as it had lasted
// when the hook's stretch was read, and no longer once the reader read. A wait begun before the
// hook paused is not reported after it measures again, though still unread: the reads in between
// would have gone unseen.
TEST_F(DrainGapTest, AWaitStillOpenIsReportedAsLongAsItHasLasted) {
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<std::unique_ptr<HandReadSocket>> socket = HandReadSocket::Open(**hosts);
  ASSERT_TRUE(socket.ok()) << socket.status();
  absl::StatusOr<SockfillHook> sockfill = TakeOverSockfill();
  ASSERT_TRUE(sockfill.ok()) << sockfill.status();
  DutyHook& hook = *sockfill->hook;
  ASSERT_TRUE(Measure(hook).ok());
  const auto read = [&]() -> absl::StatusOr<driver::BpfCounters> {
    const std::optional<driver::bpf::StretchAt> measuring = hook.MeasuringNow();
    if (!measuring) return absl::FailedPreconditionError("the hook is not measuring");
    driver::BpfCounters counters;
    absl::Status status = driver::bpf::ReadSockfillProbe(*sockfill->probe, measuring, counters);
    if (!status.ok()) return status;
    return counters;
  };
  ExpectAnOpenWaitUntilRead(**socket, read);  // in one stretch

  ASSERT_TRUE((*socket)->Send(1).ok());  // begins a wait, then the hook pauses
  hook.DetachStarts();
  hook.DetachEnds();
  EXPECT_EQ(hook.MeasuringNow(), std::nullopt);
  ASSERT_TRUE(Measure(hook).ok());
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(OpenWaitOf(read(), **socket), 0u) << "a wait of an earlier stretch reported";
  ASSERT_TRUE((*socket)->DrainExactly(1).ok());
  hook.DetachStarts();
  hook.DetachEnds();
}

// The same through the probe source the agent reads, its hooks run by the probe budget's
// schedule (attached whole here).
TEST_F(DrainGapTest, TheProbeSourceReportsAWaitStillOpen) {
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<std::unique_ptr<HandReadSocket>> socket = HandReadSocket::Open(**hosts);
  ASSERT_TRUE(socket.ok()) << socket.status();
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes({.socket_fill_threshold_pct = 0,
                             .per_packet_probes = true,
                             .budget_cpu_share = std::nullopt});
  ASSERT_TRUE(probes.ok()) << probes.status();
  ExpectAnOpenWaitUntilRead(**socket, [&] { return (*probes)->Read(); });
}

}  // namespace
}  // namespace nictune
