// SPDX-License-Identifier: Apache-2.0
// The scaling of sampled softirq times (agent/model/softirq_time.h) and its use in the window.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "agent/model/softirq_time.h"
#include "agent/model/window.h"
#include "agent/model/window_json.h"
#include "agent/procfs/softirqs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::model {
namespace {

using driver::SoftirqCpuCounter;

constexpr uint32_t kNetRx = 3;

SoftirqCpuCounter Counter(uint64_t count, uint64_t timed, uint64_t timed_weight, uint64_t time_ns) {
  return SoftirqCpuCounter{.vector = kNetRx,
                           .cpu = 0,
                           .count = count,
                           .time_ns = time_ns,
                           .timed = timed,
                           .timed_weight = timed_weight};
}

TEST(SoftirqTimeTest, EverySoftirqTimedIsExactAndNotScaled) {
  const SoftirqCpuCounter before = Counter(100, 100, 100, 1'000'000);
  // One softirq still running at the end: counted, not yet timed; its time is not extrapolated.
  const SoftirqCpuCounter after = Counter(1101, 1100, 1100, 3'000'000);
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(&before, after);
  EXPECT_EQ(estimate.count, 1001u);
  EXPECT_EQ(estimate.timed, 1000u);
  EXPECT_EQ(estimate.time_ns, 2'000'000.0);
  EXPECT_FALSE(estimate.sampled);
  EXPECT_EQ(SoftirqSampleEvery(estimate), 1.0);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf");
}

TEST(SoftirqTimeTest, OneInEightScalesTheSampledTimeToEverySoftirqCounted) {
  // 1024 softirqs of 2500 ns timed at shift 3 (each weighs 8), 8200 counted.
  const SoftirqCpuCounter after = Counter(8200, 1024, 8192, 1024ull * 2500 * 8);
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(nullptr, after);
  EXPECT_EQ(estimate.time_ns, 8200.0 * 2500);  // 20480000 * 8200 / 8192
  EXPECT_TRUE(estimate.sampled);
  EXPECT_EQ(SoftirqSampleEvery(estimate), 8.0);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, sampled 1/8");
}

TEST(SoftirqTimeTest, AWindowWhoseSamplingRateChangedIsNotBiasedTowardsItsBetterSampledPart) {
  // 1000 quiet softirqs of 10 us, all timed (weight 1), then a flood of 80000 softirqs of 2 us
  // of which 10000 were timed at shift 3 (weight 8): 10 ms + 160 ms = 170 ms in truth. Scaling
  // the unweighted sample (10 ms + 20 ms) by count / timed (81000 / 11000) would give 221 ms.
  const SoftirqCpuCounter after =
      Counter(81000, 11000, 1000 + 10000 * 8, 1000ull * 10000 + 10000ull * 2000 * 8);
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(nullptr, after);
  EXPECT_EQ(estimate.time_ns, 170'000'000.0);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, sampled 1/7.36");
}

TEST(SoftirqTimeTest, SoftirqsWithNoneTimedGiveZeroAndSaySo) {
  const SoftirqCpuCounter before = Counter(50, 10, 80, 40'000);
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(&before, Counter(53, 10, 80, 40'000));
  EXPECT_EQ(estimate.count, 3u);
  EXPECT_EQ(estimate.time_ns, 0.0);
  EXPECT_TRUE(estimate.sampled);
  EXPECT_EQ(SoftirqSampleEvery(estimate), 0.0);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, sampled, none of 3 timed");
}

TEST(SoftirqTimeTest, NoSoftirqAtAllIsAnExactZero) {
  const SoftirqCpuCounter same = Counter(50, 10, 80, 40'000);
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(&same, same);
  EXPECT_EQ(estimate.time_ns, 0.0);
  EXPECT_FALSE(estimate.sampled);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf");
}

TEST(SoftirqTimeTest, ACounterWithoutSamplingFieldsIsTakenAsTimingEverySoftirq) {
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(nullptr, Counter(500, 0, 0, 50'000'000));
  EXPECT_EQ(estimate.time_ns, 50'000'000.0);
  EXPECT_FALSE(estimate.sampled);
}

TEST(SoftirqTimeTest, ProbesReloadedCountFromZero) {
  const SoftirqCpuCounter before = Counter(1'000'000, 125'000, 1'000'000, 5'000'000'000);
  const SoftirqTimeEstimate estimate =
      EstimateSoftirqTime(&before, Counter(1600, 100, 800, 400'000));
  EXPECT_EQ(estimate.count, 1600u);
  EXPECT_EQ(estimate.timed, 100u);
  EXPECT_EQ(estimate.time_ns, 800'000.0);  // 400000 * 1600 / 800
}

TEST(SoftirqTimeTest, ATimeThatWrappedIsTheModularDifferenceNotARestart) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  // time_ns went past 2^64 by 400 after adding 500: the counts moved on, so it wrapped.
  const SoftirqCpuCounter before = Counter(1000, 100, 800, kMax - 99);
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(&before, Counter(1016, 102, 816, 400));
  EXPECT_EQ(estimate.time_ns, 500.0);  // 500 * 16 / 16
}

TEST(SoftirqTimeTest, ProductsBeyondSixtyFourBitsDoNotOverflow) {
  // time * count = 2^62 * 2^40: a 64-bit product would wrap to 0.
  const SoftirqTimeEstimate estimate = EstimateSoftirqTime(
      nullptr, Counter(uint64_t{1} << 40, uint64_t{1} << 17, uint64_t{1} << 20, uint64_t{1} << 62));
  EXPECT_EQ(estimate.time_ns, std::ldexp(1.0, 82));
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, sampled 1/8");
}

TEST(SoftirqTimeTest, VectorsOfOneCpuAddUp) {
  SoftirqTimeEstimate total;
  AddSoftirqTime(EstimateSoftirqTime(nullptr, Counter(10, 10, 10, 1000)), total);
  AddSoftirqTime(EstimateSoftirqTime(nullptr, Counter(800, 100, 800, 64'000)), total);
  EXPECT_EQ(total.count, 810u);
  EXPECT_EQ(total.timed, 110u);
  EXPECT_EQ(total.time_ns, 65'000.0);
  EXPECT_TRUE(total.sampled);
  EXPECT_EQ(SoftirqTimeSource(total), "bpf, sampled 1/7.36");  // 810 / 110
}

TEST(SoftirqTimeTest, OneVectorOverEveryCpuPairsEachCpuWithItsOwnEarlierReading) {
  SoftirqCpuCounter cpu0_before = Counter(100, 100, 100, 10'000);
  SoftirqCpuCounter cpu0_after = Counter(900, 200, 900, 90'000);  // 800 softirqs, 100 timed x 8
  SoftirqCpuCounter cpu1_after = Counter(50, 50, 50, 5'000);      // first seen: from zero
  cpu1_after.cpu = 1;
  SoftirqCpuCounter other_vector = Counter(7, 7, 7, 700);
  other_vector.vector = kNetRx + 1;
  const SoftirqTimeEstimate total = VectorSoftirqTime(
      driver::BpfCounters{.softirqs = {cpu0_before, other_vector}},
      driver::BpfCounters{.softirqs = {cpu1_after, other_vector, cpu0_after}}, kNetRx);
  EXPECT_EQ(total.count, 850u);
  EXPECT_EQ(total.timed, 150u);
  EXPECT_EQ(total.timed_weight, 850u);
  EXPECT_EQ(total.time_ns, 80'000.0 + 5'000.0);
  EXPECT_EQ(VectorSoftirqTime({}, driver::BpfCounters{.softirqs = {other_vector}}, kNetRx).count,
            0u);
}

// Two snapshots 2 s apart, for the window tests to fill in.
std::pair<Snapshot, Snapshot> TwoSecondsApart() {
  Snapshot a;
  Snapshot b;
  a.monotonic_ns = 0;
  b.monotonic_ns = 2'000'000'000;
  b.unix_ns = 2'000'000'000;
  return {a, b};
}

TEST(SoftirqTimeTest, TheWindowScalesSampledTimesAndNamesTheirSource) {
  auto [a, b] = TwoSecondsApart();
  a.bpf = driver::BpfCounters{.softirqs = {Counter(0, 0, 0, 0)}};
  SoftirqCpuCounter timer = Counter(100, 100, 100, 1'000'000);
  timer.vector = 1;
  // NET_RX: 204800 softirqs, 25600 timed at one in 8, 5 us each: 1.024 s of 2 s.
  b.bpf =
      driver::BpfCounters{.softirqs = {Counter(204800, 25600, 204800, 25600ull * 5000 * 8), timer}};
  const absl::StatusOr<Window> w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->cpus.size(), 1u);
  const CpuWindow& cpu = w->cpus[0];
  EXPECT_DOUBLE_EQ(*cpu.bpf_net_rx_share, 0.512);
  EXPECT_DOUBLE_EQ(*cpu.bpf_softirq_share, 0.5125);
  EXPECT_EQ(cpu.bpf_softirq_source, "bpf, sampled 1/7.97");  // 204900 / 25700
  const nlohmann::json json = WindowToJson(*w);
  EXPECT_EQ(json["cpus"][0]["time_share"]["softirq_source"], "bpf, sampled 1/7.97");
}

// Timing in the probe budget's slots (driver/bpf/probe_duty_cycle.h): the probes saw only their slots'
// softirqs, so the count is /proc/softirqs' and the time the slots' mean times that count.

driver::BpfCounters DutyReading(uint64_t monotonic_ns, uint64_t untimed_ns,
                                std::vector<SoftirqCpuCounter> softirqs) {
  return driver::BpfCounters{.monotonic_ns = monotonic_ns,
                             .softirqs = std::move(softirqs),
                             .softirq_duty = {.untimed_ns = untimed_ns}};
}

procfs::SoftirqTable ProcTable(std::vector<int> cpu_ids, std::vector<uint64_t> net_rx_per_cpu) {
  procfs::SoftirqTable table{.cpu_ids = std::move(cpu_ids)};
  table.rows.push_back(
      {.vector = "TIMER", .per_cpu = std::vector<uint64_t>(table.cpu_ids.size(), 5)});
  table.rows.push_back({.vector = "NET_RX", .per_cpu = std::move(net_rx_per_cpu)});
  return table;
}

TEST(SoftirqTimeTest, TheTimedShareIsTheShareOfTheReadingsIntervalTimingWasOn) {
  // 1 s between the readings, 940 ms of it untimed: timing 6% of the time.
  EXPECT_NEAR(SoftirqTimedShare(DutyReading(1'000'000'000, 100, {}),
                                DutyReading(2'000'000'000, 940'000'100, {})),
              0.06, 1e-12);
  // Never off between them: exactly 1, however long it was off before.
  EXPECT_EQ(SoftirqTimedShare(DutyReading(1'000'000'000, 5'000, {}),
                              DutyReading(2'000'000'000, 5'000, {})),
            1.0);
  // Probes reloaded (untimed time went down): what they counted since, over the readings.
  EXPECT_DOUBLE_EQ(SoftirqTimedShare(DutyReading(1'000'000'000, 900'000'000, {}),
                                     DutyReading(2'000'000'000, 250'000'000, {})),
                   0.75);
}

TEST(SoftirqTimeTest, ADutyCycledWindowCountsFromProcAndScalesTheSlotsMeanTime) {
  // In 1 s, 770000 NET_RX softirqs by /proc/softirqs; softirq_entry attached 13 ms of it, in
  // which the probes counted 10010 and timed 10000 of 1300 ns each (every one: weight 1).
  const SoftirqCpuCounter before = Counter(1'000'000, 900'000, 900'000, 3'000'000'000);
  const SoftirqCpuCounter after =
      Counter(1'010'010, 910'000, 910'000, 3'000'000'000 + 10'000ull * 1300);
  const SoftirqTimeEstimate estimate =
      EstimateSoftirqTime(&before, after, {.timed_share = 0.013, .exact_count = 770'000});
  EXPECT_EQ(estimate.count, 770'000u);
  EXPECT_EQ(estimate.timed, 10'000u);
  EXPECT_EQ(estimate.time_ns, 770'000.0 * 1300);
  EXPECT_TRUE(estimate.sampled);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, timed 1.3% of the time");
}

TEST(SoftirqTimeTest, ADutyCycledWindowWithoutProcCountsScalesTheProbesCountByTheShare) {
  const SoftirqTimeEstimate estimate =
      EstimateSoftirqTime(nullptr, Counter(1000, 1000, 1000, 2'000'000), {.timed_share = 0.25});
  EXPECT_EQ(estimate.count, 4000u);
  EXPECT_EQ(estimate.time_ns, 8'000'000.0);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, timed 25% of the time");
}

TEST(SoftirqTimeTest, ADutyCycledWindowWithNoneTimedSaysSo) {
  const SoftirqCpuCounter same = Counter(50, 10, 10, 40'000);
  const SoftirqTimeEstimate estimate =
      EstimateSoftirqTime(&same, same, {.timed_share = 0.02, .exact_count = 3});
  EXPECT_EQ(estimate.count, 3u);
  EXPECT_EQ(estimate.time_ns, 0.0);
  EXPECT_TRUE(estimate.sampled);
  EXPECT_EQ(SoftirqTimeSource(estimate), "bpf, timed 2% of the time, none of 3 timed");
  // No softirq at all is still an exact zero.
  EXPECT_FALSE(EstimateSoftirqTime(&same, same, {.timed_share = 0.02, .exact_count = 0}).sampled);
}

TEST(SoftirqTimeTest, ProcCountsArePairedByCpuIdAndRestartFromZero) {
  const procfs::SoftirqTable before = ProcTable({0, 2}, {100, 7000});
  const procfs::SoftirqTable after = ProcTable({0, 1, 2}, {150, 9, 7400});
  // CPU 1 came online: no count for it.
  EXPECT_EQ(ProcSoftirqCounts(before, after, kNetRx), (std::map<int, uint64_t>{{0, 50}, {2, 400}}));
  EXPECT_TRUE(ProcSoftirqCounts(before, after, /*NET_TX*/ 2).empty());
  EXPECT_EQ(ProcSoftirqCounts(ProcTable({0}, {500}), ProcTable({0}, {20}), kNetRx),
            (std::map<int, uint64_t>{{0, 20}}));
}

TEST(SoftirqTimeTest, OneVectorOverEveryCpuTakesEachCpusProcCountWhenDutyCycled) {
  SoftirqCpuCounter cpu1_before = Counter(0, 0, 0, 0);
  cpu1_before.cpu = 1;
  SoftirqCpuCounter cpu1_after = Counter(200, 200, 200, 200'000);  // 1000 ns each
  cpu1_after.cpu = 1;
  const driver::BpfCounters before = DutyReading(0, 0, {Counter(0, 0, 0, 0), cpu1_before});
  // 500 ms of 1 s untimed; CPU 0: 100 timed of 2000 ns.
  const driver::BpfCounters after =
      DutyReading(1'000'000'000, 500'000'000, {Counter(100, 100, 100, 200'000), cpu1_after});
  const procfs::SoftirqTable proc_before = ProcTable({0, 1}, {1000, 1000});
  const procfs::SoftirqTable proc_after = ProcTable({0, 1}, {1300, 1500});
  const SoftirqTimeEstimate total =
      VectorSoftirqTime(before, after, kNetRx, &proc_before, &proc_after);
  EXPECT_EQ(total.count, 800u);
  EXPECT_EQ(total.timed, 300u);
  EXPECT_EQ(total.time_ns, 300 * 2000.0 + 500 * 1000.0);
  EXPECT_EQ(total.timed_share, 0.5);
  EXPECT_EQ(SoftirqTimeSource(total), "bpf, timed 50% of the time");
}

TEST(SoftirqTimeTest, TheWindowCountsDutyCycledSoftirqsFromProcAndNamesTheShareTimed) {
  auto [a, b] = TwoSecondsApart();
  a.bpf = DutyReading(0, 0, {Counter(0, 0, 0, 0)});
  // 2 s, 1.88 s untimed: 6% timed. NET_RX on CPU 0: 400000 by /proc/softirqs, 12000 timed of
  // 2500 ns each: 1 s of 2 s.
  b.bpf = DutyReading(2'000'000'000, 1'880'000'000,
                      {Counter(12'000, 12'000, 12'000, 12'000ull * 2500)});
  a.softirqs = ProcTable({0}, {1'000});
  b.softirqs = ProcTable({0}, {401'000});
  const absl::StatusOr<Window> w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->cpus.size(), 1u);
  EXPECT_DOUBLE_EQ(*w->cpus[0].bpf_net_rx_share, 0.5);
  EXPECT_EQ(w->cpus[0].bpf_softirq_source, "bpf, timed 6% of the time");
  ASSERT_EQ(w->softirqs.size(), 1u);
  EXPECT_EQ(w->softirqs[0].vector, kNetRx);
  EXPECT_EQ(w->softirqs[0].count, 400'000u);
  EXPECT_DOUBLE_EQ(w->softirqs[0].time_ns, 1e9);
  const nlohmann::json json = WindowToJson(*w);
  EXPECT_EQ(json["cpus"][0]["time_share"]["softirq_source"], "bpf, timed 6% of the time");
}

}  // namespace
}  // namespace nictune::model
