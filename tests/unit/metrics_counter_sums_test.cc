// SPDX-License-Identifier: Apache-2.0
// CounterSums keeps the windows' figures added up, and forgets a label set that nothing was added
// to for its forget period, so that NAPIs and devices that went away do not pile up on /metrics.
#include <string>

#include "agent/metrics/families.h"
#include "agent/metrics/swept_series.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

namespace nictune::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

TEST(CounterSumsTest, AddsUpAcrossPublishesAndForgetsWhatWentQuiet) {
  prometheus::Registry registry;
  // A name outside the catalog is fine here: the sums do not read the help.
  CounterSeries series(CounterFamily(registry, "nictune_test_total"));
  CounterSums sums(/*forget_after=*/3);
  sums.Add({{"device", "veth1"}}, 5);
  sums.Add({{"device", "veth2"}}, 1);
  sums.PublishTo(series);
  sums.Add({{"device", "veth1"}}, 5);
  sums.PublishTo(series);
  EXPECT_THAT(Text(registry), HasSubstr("nictune_test_total{device=\"veth1\"} 10"));
  EXPECT_THAT(Text(registry), HasSubstr("nictune_test_total{device=\"veth2\"} 1"));
  // veth2 saw nothing for three publishes: gone. veth1 keeps being added to.
  for (int i = 0; i < 2; ++i) {
    sums.Add({{"device", "veth1"}}, 1);
    sums.PublishTo(series);
  }
  EXPECT_THAT(Text(registry), HasSubstr("nictune_test_total{device=\"veth1\"} 12"));
  EXPECT_THAT(Text(registry), Not(HasSubstr("veth2")));
  EXPECT_FALSE(sums.Contains({{"device", "veth2"}}));
  // Back later: a new series from zero, which Prometheus reads as a counter reset.
  sums.Add({{"device", "veth2"}}, 2);
  sums.PublishTo(series);
  EXPECT_THAT(Text(registry), HasSubstr("nictune_test_total{device=\"veth2\"} 2"));
}

}  // namespace
}  // namespace nictune::metrics
