// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's moderation and ring, driven on a virtual clock exactly as the process drives
// them on the real one: sleep until NextInterruptNs, Advance, take the burst.
#include <cstdint>
#include <set>
#include <vector>

#include "driver/emulated/nic_engine.h"
#include "gtest/gtest.h"

namespace nictune::driver::emulated {
namespace {

struct Interrupts {
  std::vector<size_t> burst_sizes;
  std::vector<int64_t> fire_times_ns;
};

// Fires every interrupt on time until end_ns.
Interrupts RunUntil(NicEngine& engine, int64_t end_ns) {
  Interrupts run;
  while (true) {
    const int64_t due_ns = engine.NextInterruptNs();
    if (due_ns > end_ns) break;
    EXPECT_TRUE(engine.Advance(due_ns)) << "due at " << due_ns << " but Advance disagreed";
    const std::vector<PendingFrame> burst = engine.TakeBurst();
    run.burst_sizes.push_back(burst.size());
    run.fire_times_ns.push_back(due_ns);
    engine.OnNapiComplete(due_ns, burst.size(), burst.size() * 128);
  }
  return run;
}

std::unique_ptr<NicEngine> Engine(double pps, int64_t ring, ModerationSettings settings) {
  auto engine = NicEngine::Create({FlowSpec{.port = 9000, .rate_pps = pps, .frame_bytes = 128}},
                                  ring, settings, 0);
  EXPECT_TRUE(engine.ok()) << engine.status();
  return std::move(*engine);
}

TEST(EmulatedNicEngineTest, RxUsecsTimerStartsAtTheFirstPendingPacket) {
  // A packet every 100 us; the timer starts at a packet and fires 250 us later, taking the
  // packets at +0, +100 and +200: one interrupt every 300 us, 3 packets each.
  auto engine = Engine(10'000, 512, {.rx_usecs = 250});
  const Interrupts run = RunUntil(*engine, 300'000'000 - 1);
  ASSERT_EQ(run.fire_times_ns.size(), 1000u);
  for (size_t i = 0; i < run.burst_sizes.size(); ++i) {
    EXPECT_EQ(run.burst_sizes[i], 3u) << "interrupt " << i;
    EXPECT_EQ(run.fire_times_ns[i], 250'000 + static_cast<int64_t>(i) * 300'000);
  }
  EXPECT_EQ(engine->counters().generated, 3000u);
  EXPECT_EQ(engine->counters().interrupts, 1000u);
  EXPECT_EQ(engine->counters().missed, 0u);
}

TEST(EmulatedNicEngineTest, RxFramesFiresBeforeTheTimer) {
  auto engine = Engine(10'000, 512, {.rx_usecs = 10'000, .rx_frames = 4});
  const Interrupts run = RunUntil(*engine, 100'000'000);
  ASSERT_FALSE(run.burst_sizes.empty());
  for (size_t burst : run.burst_sizes) EXPECT_EQ(burst, 4u);
  // The fourth packet of each group arrives 300 us after the first.
  EXPECT_EQ(run.fire_times_ns[0], 300'000);
  EXPECT_EQ(run.fire_times_ns[1], 700'000);
}

TEST(EmulatedNicEngineTest, ZeroRxUsecsInterruptsForEveryPacket) {
  auto engine = Engine(1'000, 512, {.rx_usecs = 0});
  const Interrupts run = RunUntil(*engine, 10'000'000);
  EXPECT_EQ(run.burst_sizes.size(), 11u);  // packets at 0, 1, ..., 10 ms
  for (size_t burst : run.burst_sizes) EXPECT_EQ(burst, 1u);
}

TEST(EmulatedNicEngineTest, FullRingCountsMissed) {
  // 20 packets per 2 ms interval into an 8-descriptor ring: 8 delivered and 12 missed each time.
  auto engine = Engine(10'000, 8, {.rx_usecs = 1950});
  const Interrupts run = RunUntil(*engine, 20'000'000 - 1);
  ASSERT_EQ(run.burst_sizes.size(), 10u);
  for (size_t burst : run.burst_sizes) EXPECT_EQ(burst, 8u);
  EXPECT_EQ(engine->counters().missed, 120u);
  EXPECT_EQ(engine->counters().generated, 200u);
}

TEST(EmulatedNicEngineTest, AFullRingLeavesOnlyTheTimer) {
  // 1M pps for up to 1 s into 64 descriptors: the next interrupt is the timer's, found without
  // walking a million arrivals.
  auto engine = Engine(1'000'000, 64, {.rx_usecs = 1'000'000});
  EXPECT_EQ(engine->NextInterruptNs(), 1'000'000'000);
  ASSERT_TRUE(engine->Advance(1'000'000'000));
  EXPECT_EQ(engine->TakeBurst().size(), 64u);
  EXPECT_EQ(engine->counters().missed, 1'000'001u - 64u);
}

TEST(EmulatedNicEngineTest, ALateWakeUpTakesEverythingThatArrivedSoFar) {
  auto engine = Engine(10'000, 512, {.rx_usecs = 100});
  EXPECT_EQ(engine->NextInterruptNs(), 100'000);
  ASSERT_TRUE(engine->Advance(5'000'000));  // 4.9 ms late: 51 packets are in the ring
  EXPECT_EQ(engine->TakeBurst().size(), 51u);
  EXPECT_EQ(engine->NextInterruptNs(), 5'200'000);
}

TEST(EmulatedNicEngineTest, OnOffFlowSendsOnlyDuringItsBursts) {
  auto engine = NicEngine::Create(
      {FlowSpec{.rate_pps = 100'000, .frame_bytes = 128, .on_ns = 100'000, .off_ns = 900'000}}, 512,
      {.rx_usecs = 0}, 0);
  ASSERT_TRUE(engine.ok());
  const Interrupts run = RunUntil(**engine, 10'000'000 - 1);
  EXPECT_EQ((*engine)->counters().generated, 100u);  // 10 per 1 ms period
  for (int64_t fire : run.fire_times_ns) EXPECT_LT(fire % 1'000'000, 100'000) << fire;
}

TEST(EmulatedNicEngineTest, SettingsChangeTheNextInterval) {
  auto engine = Engine(10'000, 512, {.rx_usecs = 250});
  RunUntil(*engine, 1'000'000);
  ASSERT_TRUE(engine->SetModeration({.rx_usecs = 1000}).ok());
  const Interrupts run = RunUntil(*engine, 10'000'000);
  ASSERT_GE(run.burst_sizes.size(), 3u);
  EXPECT_EQ(run.burst_sizes[1], 11u);  // +0 .. +1000 us, every 100 us
  EXPECT_EQ(engine->SetModeration({.rx_usecs = -1}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(engine->SetRingSize(0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(engine->SetFlowRate(3, 10, 0).code(), absl::StatusCode::kNotFound);
}

TEST(EmulatedNicEngineTest, AdaptiveRxWalksTheNetDimProfiles) {
  auto engine = Engine(200'000, 4096, {.adaptive_rx = true});
  std::set<int64_t> intervals;
  for (int64_t end = 1'000'000; end <= 200'000'000; end += 1'000'000) {
    RunUntil(*engine, end);
    intervals.insert(engine->counters().interval_ns);
  }
  // net_dim's EQE profile timers only, and the walk moved at least once under steady load.
  for (int64_t interval : intervals) {
    EXPECT_TRUE(std::set<int64_t>({1'000, 8'000, 64'000, 128'000, 256'000}).contains(interval))
        << interval;
  }
  EXPECT_GT(engine->counters().adaptive_changes, 0u);
}

}  // namespace
}  // namespace nictune::driver::emulated
