// SPDX-License-Identifier: Apache-2.0
// The emulated NIC delivers an interrupt's burst as a NIC does: NAPI polls it in batches of up to
// its weight, so nictune's own napi:napi_poll figures (polls, work, budget exhausted) follow the
// burst size as tests/support/napi_burst_prediction.h predicts; and its receive ring overflows
// (missed frames, its own counter) only when an interrupt interval brings more frames than the
// ring holds. The real binary, the real kernel and the real probes; each test removes its
// namespace even when it fails.
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/bpf/counter_sums.h"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/napi_burst_prediction.h"
#include "tests/support/privileges.h"

namespace nictune {
namespace {

using driver::emulated::EmulatedNicCounters;
using testing_support::EmulatedHost;
using testing_support::EmulatedHostOptions;

constexpr int64_t kNapiWeight = 64;           // NAPI_POLL_WEIGHT, what tun registers its NAPIs with
constexpr int64_t kNeverByTimer = 1'000'000;  // rx-usecs: a second, so rx-frames decides

EmulatedHostOptions HostOptions(const std::string& device_prefix) {
  return EmulatedHostOptions{
      .nic_binary = absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"),
      .device = absl::StrCat(device_prefix, getpid() % 100000),
      .rate_pps = 0,
      .rx_usecs = 200,
      // A spinning NIC fires within microseconds of its due time, so an rx-frames burst holds
      // what it was due with rather than the frames of a late wake-up too.
      .nic_spin_us = 100,
      .max_run = absl::Seconds(60),
      .rcvbuf_bytes = 4 << 20};
}

struct Reading {
  EmulatedNicCounters nic;
  bpf_tests::NapiTotals napi;
};

absl::StatusOr<Reading> Read(EmulatedHost& host, driver::ProbeSource& probes) {
  absl::StatusOr<driver::BpfCounters> bpf = probes.Read();
  if (!bpf.ok()) return bpf.status();
  absl::StatusOr<EmulatedNicCounters> nic = host.Counters();
  if (!nic.ok()) return nic.status();
  return Reading{.nic = *nic, .napi = bpf_tests::NapiTotalsFor(*bpf, host.options().device)};
}

class EmulatedNicBatchingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  }
};

struct BurstCase {
  int64_t frames;
  double rate_pps;  // slow enough that a frame rarely arrives during the NIC's wake-up
};

TEST_F(EmulatedNicBatchingTest, PacketsPerPollAndPollsPerInterruptFollowTheBurstSize) {
  absl::StatusOr<std::unique_ptr<EmulatedHost>> host = EmulatedHost::Start(HostOptions("emb"));
  ASSERT_TRUE(host.ok()) << host.status();
  // Attached whole (no probe budget): the test counts every poll.
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes({.budget_cpu_share = std::nullopt});
  ASSERT_TRUE(probes.ok()) << probes.status();
  ASSERT_TRUE((*host)->SetKnob("rx_usecs", kNeverByTimer).ok());
  for (const BurstCase burst :
       {BurstCase{16, 4000}, BurstCase{64, 8000}, BurstCase{200, 16000}, BurstCase{1000, 20000}}) {
    ASSERT_TRUE((*host)->SetKnob("rx_frames", burst.frames).ok());
    ASSERT_TRUE((*host)->SetRate(burst.rate_pps).ok());
    absl::SleepFor(absl::Milliseconds(200));  // the burst of the old setting is gone
    absl::StatusOr<Reading> before = Read(**host, **probes);
    ASSERT_TRUE(before.ok()) << before.status();
    absl::SleepFor(absl::Milliseconds(1500));
    absl::StatusOr<Reading> after = Read(**host, **probes);
    ASSERT_TRUE(after.ok()) << after.status();

    const double interrupts = static_cast<double>(after->nic.interrupts - before->nic.interrupts);
    const double delivered = static_cast<double>(after->nic.delivered - before->nic.delivered);
    const double polls = static_cast<double>(after->napi.polls - before->napi.polls);
    const double work = static_cast<double>(after->napi.work - before->napi.work);
    const double exhausted =
        static_cast<double>(after->napi.budget_exhausted - before->napi.budget_exhausted);
    ASSERT_GE(interrupts, 20) << burst.frames;
    ASSERT_GT(polls, 0) << burst.frames;
    const testing_support::BurstPolls predicted =
        testing_support::PredictBurstPolls(burst.frames, kNapiWeight);
    const auto frames = static_cast<double>(burst.frames);
    const auto predicted_polls = static_cast<double>(predicted.polls);
    const double predicted_per_poll = frames / predicted_polls;
    std::cout << "burst " << burst.frames << ": frames/interrupt " << delivered / interrupts
              << ", polls/interrupt " << polls / interrupts << " (predicted " << predicted.polls
              << "), packets/poll " << work / polls << " (predicted " << predicted_per_poll
              << "), budget exhausted/interrupt " << exhausted / interrupts << " (predicted "
              << predicted.budget_exhausted << ")\n";
    // Every frame the TAP took was polled: the probe saw the NIC's deliveries as work.
    EXPECT_NEAR(work, delivered, 0.02 * delivered + 2 * frames);
    EXPECT_NEAR(delivered / interrupts, frames, 0.1 * frames);
    EXPECT_NEAR(polls / interrupts, predicted_polls, 0.1 * predicted_polls);
    EXPECT_NEAR(work / polls, predicted_per_poll, 0.1 * predicted_per_poll);
    EXPECT_NEAR(exhausted / interrupts, static_cast<double>(predicted.budget_exhausted),
                0.1 * static_cast<double>(predicted.budget_exhausted));
    if (burst.frames > kNapiWeight) {
      EXPECT_GT(exhausted, 0) << burst.frames;
    }
  }
}

struct RingCase {
  double fill;  // frames one interrupt interval brings, over the ring size
  bool overflows;
};

// One second of the NIC's own counters.
struct RingWindow {
  double interrupts = 0;
  double generated = 0;
  double delivered = 0;
  double missed = 0;
  double late_seconds = 0;  // the interrupts' lateness, summed
  uint64_t stalls = 0;
};

absl::StatusOr<RingWindow> MeasureRingWindow(EmulatedHost& host) {
  absl::StatusOr<EmulatedNicCounters> before = host.Counters();
  if (!before.ok()) return before.status();
  absl::SleepFor(absl::Milliseconds(1000));
  absl::StatusOr<EmulatedNicCounters> after = host.Counters();
  if (!after.ok()) return after.status();
  return RingWindow{
      .interrupts = static_cast<double>(after->interrupts - before->interrupts),
      .generated = static_cast<double>(after->generated - before->generated),
      .delivered = static_cast<double>(after->delivered - before->delivered),
      .missed = static_cast<double>(after->missed - before->missed),
      .late_seconds = static_cast<double>(after->late_ns_total - before->late_ns_total) / 1e9,
      .stalls = after->stalls - before->stalls};
}

TEST_F(EmulatedNicBatchingTest, TheRingOverflowsOnlyWhenAnIntervalBringsMoreThanItHolds) {
  constexpr int64_t kRing = 256;
  constexpr double kRate = 20000;
  absl::StatusOr<std::unique_ptr<EmulatedHost>> host = EmulatedHost::Start(HostOptions("emr"));
  ASSERT_TRUE(host.ok()) << host.status();
  ASSERT_TRUE((*host)->SetKnob("ring_size", kRing).ok());
  ASSERT_TRUE((*host)->SetRate(kRate).ok());
  for (const RingCase ring : {RingCase{0.5, false}, RingCase{0.85, false}, RingCase{1.5, true}}) {
    const auto rx_usecs = static_cast<int64_t>(ring.fill * kRing / kRate * 1e6);
    ASSERT_TRUE((*host)->SetKnob("rx_usecs", rx_usecs).ok());
    absl::SleepFor(absl::Milliseconds(100));
    // A window in which the host held the NIC's thread off its CPU (a stall) has an interval
    // longer than rx-usecs; up to three windows are tried for one without.
    absl::StatusOr<RingWindow> window;
    for (int attempt = 0; attempt < 3; ++attempt) {
      window = MeasureRingWindow(**host);
      ASSERT_TRUE(window.ok()) << window.status();
      if (window->stalls == 0) break;
    }
    ASSERT_GE(window->interrupts, 20) << rx_usecs;
    // Each interval is rx-usecs from its first frame, plus the wait for that frame and the NIC's
    // lateness: what arrives in it is the generated frames per interrupt.
    const double per_interval = window->generated / window->interrupts;
    std::cout << "rx-usecs " << rx_usecs << " at " << kRate << " pps, ring " << kRing
              << ": frames/interval " << per_interval << ", missed/interrupt "
              << window->missed / window->interrupts << ", " << window->stalls << " stalls\n";
    if (!ring.overflows) {
      EXPECT_LT(per_interval, kRing) << rx_usecs;
      if (window->stalls == 0) {
        EXPECT_EQ(window->missed, 0) << rx_usecs;
      } else {
        // Only the stalls' lateness can have brought more than the ring holds.
        EXPECT_LE(window->missed, kRate * window->late_seconds + 1) << rx_usecs;
      }
    } else {
      const double expected = per_interval - kRing;
      EXPECT_NEAR(window->missed / window->interrupts, expected, 0.1 * expected) << rx_usecs;
      EXPECT_NEAR(window->delivered / window->interrupts, static_cast<double>(kRing), 0.02 * kRing);
    }
  }
}

}  // namespace
}  // namespace nictune
