// SPDX-License-Identifier: Apache-2.0
// The drop series cap holds nictune_skb_drops_total to its places whatever the drops' labels,
// keeps every drop in the totals, and gives a quiet set's place up only after the exporter has
// dropped its series.
#include <cstdint>
#include <map>
#include <string>

#include "agent/metrics/drop_series_cap.h"
#include "agent/metrics/families.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/swept_series.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"

namespace nictune::metrics {
namespace {

model::DropWindow Drop(const std::string& reason, const std::string& device, uint64_t count) {
  return model::DropWindow{.reason_name = reason,
                           .protocol = 0x0800,
                           .l4_protocol = 17,
                           .device = device,
                           .count = count};
}

// What /metrics and history sum per label set in this window.
std::map<prometheus::Labels, uint64_t> SeriesOf(const model::Window& window) {
  std::map<prometheus::Labels, uint64_t> series;
  for (const model::DropWindow& drop : window.drops) series[DropLabels(drop)] += drop.count;
  return series;
}

const prometheus::Labels kOverflowLabels = {
    {"reason", kOverflow}, {"proto", kOverflow}, {"device", kOverflow}};

TEST(DropSeriesCapTest, LaterSetsCountInOneOverflowSeriesAndNothingIsLost) {
  DropSeriesCap cap(/*max_series=*/2);
  model::Window window;
  window.drops = {Drop("NO_SOCKET", "eth0", 50), Drop("SOCKET_RCVBUFF", "eth0", 30),
                  Drop("NO_SOCKET", "veth1", 7), Drop("OTHERHOST", "eth0", 5),
                  Drop("NO_SOCKET", "eth0", 1)};  // another port of the first set
  cap.Apply(window);
  const std::map<prometheus::Labels, uint64_t> series = SeriesOf(window);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series.at(DropLabels(Drop("NO_SOCKET", "eth0", 0))), 51u);
  EXPECT_EQ(series.at(DropLabels(Drop("SOCKET_RCVBUFF", "eth0", 0))), 30u);
  EXPECT_EQ(series.at(kOverflowLabels), 12u);
  EXPECT_EQ(cap.admitted(), 2u);
  EXPECT_EQ(cap.overflow_drops(), 12u);
}

TEST(DropSeriesCapTest, AnAdmittedSetKeepsItsPlaceAcrossWindowsWhateverComesFirst) {
  DropSeriesCap cap(/*max_series=*/1);
  model::Window first;
  first.drops = {Drop("NO_SOCKET", "eth0", 3)};
  cap.Apply(first);
  model::Window second;
  second.drops = {Drop("OTHERHOST", "eth0", 900), Drop("NO_SOCKET", "eth0", 2)};
  cap.Apply(second);
  EXPECT_TRUE(second.drops[0].beyond_series_cap);
  EXPECT_FALSE(second.drops[1].beyond_series_cap);
  EXPECT_EQ(cap.overflow_drops(), 900u);
}

TEST(DropSeriesCapTest, AQuietSetGivesItsPlaceUpOnlyAfterTheExporterForgotItsSeries) {
  DropSeriesCap cap(/*max_series=*/1, /*release_after=*/3);
  model::Window busy;
  busy.drops = {Drop("NO_SOCKET", "veth7", 4)};
  cap.Apply(busy);  // interval 0
  // Intervals 1 to 3: another set drops, the place is still veth7's.
  for (int i = 1; i <= 3; ++i) {
    model::Window other;
    other.drops = {Drop("NO_SOCKET", "veth8", 1)};
    cap.Apply(other);
    EXPECT_TRUE(other.drops[0].beyond_series_cap) << "interval " << i;
  }
  // Interval 4: veth7 last dropped 4 intervals ago, more than 3: the place is veth8's now.
  model::Window later;
  later.drops = {Drop("NO_SOCKET", "veth8", 1)};
  cap.Apply(later);
  EXPECT_FALSE(later.drops[0].beyond_series_cap);
  EXPECT_EQ(cap.admitted(), 1u);
}

// The exporter's sums and the cap side by side, as the sampler runs them (the cap, then the
// publish): at no interval do two sets hold series under a cap of one.
TEST(DropSeriesCapTest, TheExporterHasForgottenAQuietSetBeforeAnotherTakesItsPlace) {
  DropSeriesCap cap(/*max_series=*/1);
  CounterSums sums;
  prometheus::Registry registry;
  CounterSeries series(CounterFamily(registry, "nictune_skb_drops_total"));
  const prometheus::Labels veth7 = DropLabels(Drop("NO_SOCKET", "veth7", 0));
  const prometheus::Labels veth8 = DropLabels(Drop("NO_SOCKET", "veth8", 0));
  bool veth8_admitted = false;
  for (uint64_t interval = 0; interval < 2 * CounterSums::kForgetAfterPublishes; ++interval) {
    model::Window window;
    window.drops = {Drop("NO_SOCKET", interval == 0 ? "veth7" : "veth8", 1)};
    cap.Apply(window);
    for (const model::DropWindow& drop : window.drops) sums.Add(DropLabels(drop), 1);
    sums.PublishTo(series);
    EXPECT_FALSE(sums.Contains(veth7) && sums.Contains(veth8)) << "interval " << interval;
    veth8_admitted |= !window.drops[0].beyond_series_cap && interval > 0;
  }
  EXPECT_TRUE(veth8_admitted) << "the quiet set never gave its place up";
}

TEST(DropSeriesCapTest, ThousandsOfDevicesMakeTheCapAndOneOverflowSeries) {
  DropSeriesCap cap(/*max_series=*/64);
  model::Window window;
  uint64_t total = 0;
  for (uint64_t i = 0; i < 5000; ++i) {
    window.drops.push_back(
        Drop(i % 2 ? "NO_SOCKET" : "SOCKET_RCVBUFF", "veth" + std::to_string(i), i % 7 + 1));
    total += i % 7 + 1;
  }
  cap.Apply(window);
  const std::map<prometheus::Labels, uint64_t> series = SeriesOf(window);
  EXPECT_EQ(series.size(), 65u);
  uint64_t summed = 0;
  for (const auto& [labels, count] : series) summed += count;
  EXPECT_EQ(summed, total);
}

}  // namespace
}  // namespace nictune::metrics
