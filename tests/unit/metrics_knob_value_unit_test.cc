// SPDX-License-Identifier: Apache-2.0
// A knob's current and recommended values go to the families of its unit, in base units, and the
// unit families together hold as many series as the knob targets (the budget of knob_mode).
#include "agent/metrics/knob_value_unit.h"

#include <string>

#include "absl/strings/match.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/figure_catalog.h"
#include "agent/metrics/series_budget.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::metrics {
namespace {

using tuner::Knob;

TEST(KnobValueUnitTest, TimeIsInSecondsAndEveryFamilyEndsInItsUnit) {
  EXPECT_EQ(ValueUnitOf(Knob::kRxUsecs), KnobValueUnit::kSeconds);
  EXPECT_DOUBLE_EQ(ValueScaleOf(Knob::kRxUsecs), 1e-6);
  EXPECT_EQ(ValueUnitOf(Knob::kGroFlushTimeout), KnobValueUnit::kSeconds);
  EXPECT_DOUBLE_EQ(ValueScaleOf(Knob::kGroFlushTimeout), 1e-9);
  EXPECT_EQ(ValueUnitOf(Knob::kRmemMax), KnobValueUnit::kBytes);
  EXPECT_DOUBLE_EQ(ValueScaleOf(Knob::kRmemMax), 1);
  EXPECT_EQ(ValueUnitOf(Knob::kRxFrames), KnobValueUnit::kPackets);
  EXPECT_EQ(ValueUnitOf(Knob::kAdaptiveRx), KnobValueUnit::kEnabled);
  EXPECT_EQ(ValueUnitOf(Knob::kDevWeightRxBias), KnobValueUnit::kRatio);
  EXPECT_EQ(ValueUnitOf(Knob::kNapiDeferHardIrqs), KnobValueUnit::kPolls);
  EXPECT_EQ(CurrentFamilyOf(KnobValueUnit::kSeconds), family::kKnobCurrentSeconds);
  EXPECT_EQ(RecommendedFamilyOf(KnobValueUnit::kEnabled), family::kKnobRecommendedEnabled);
  for (const KnobValueUnit unit : kKnobValueUnits) {
    for (const std::string& name :
         {std::string(CurrentFamilyOf(unit)), std::string(RecommendedFamilyOf(unit))}) {
      const Figure* figure = FindFigure(name);
      ASSERT_NE(figure, nullptr) << name;
      EXPECT_TRUE(absl::EndsWith(name, "_" + figure->unit)) << name;
    }
  }
}

// A knob added with a unit no family takes fails here, rather than land in one by default.
TEST(KnobValueUnitTest, EveryKnobsUnitHasAFamily) {
  for (const Knob knob : tuner::kAllKnobs) {
    EXPECT_TRUE(ValueUnitOfUnit(tuner::KnobUnit(knob)).has_value())
        << tuner::KnobName(knob) << ": unit " << tuner::KnobUnit(knob);
  }
  EXPECT_FALSE(ValueUnitOfUnit("ms").has_value());
}

TEST(KnobValueUnitTest, EachFamilysHelpNamesItsKnobs) {
  EXPECT_THAT(FindFigure(family::kKnobCurrentSeconds)->help,
              ::testing::HasSubstr("rx_usecs, netdev_budget_usecs, gro_flush_timeout, in seconds"));
  EXPECT_THAT(FindFigure(family::kKnobRecommendedBytes)->help,
              ::testing::HasSubstr("rmem_default, rmem_max, udp_rmem_min, in bytes"));
  EXPECT_THAT(FindFigure(family::kKnobCurrentEnabled)->help,
              ::testing::HasSubstr("adaptive_rx, napi_threaded, in 1 on, 0 off"));
  EXPECT_THAT(FindFigure(family::kKnobCurrentRatio)->help,
              ::testing::HasSubstr("dev_weight_rx_bias, dev_weight_tx_bias, in multiples"));
  for (const KnobValueUnit unit : kKnobValueUnits) {
    EXPECT_THAT(FindFigure(CurrentFamilyOf(unit))->help,
                ::testing::Not(::testing::HasSubstr("so_rcvbuf")));
  }
}

TEST(KnobValueUnitTest, TheUnitFamiliesTogetherHoldOneSeriesPerKnobTarget) {
  const HostShape shape{.cpus = 4, .irqs = 10, .devices = 3, .napis = 7, .drop_reasons = 1};
  const SeriesBudget budget = BudgetFor(shape, SeriesOptions{});
  size_t current = 0;
  size_t recommended = 0;
  for (const KnobValueUnit unit : kKnobValueUnits) {
    current += budget.Of(std::string(CurrentFamilyOf(unit)));
    recommended += budget.Of(std::string(RecommendedFamilyOf(unit)));
  }
  // Seven device knobs on each of 3 devices, the two napi-set also sets on each of 7 NAPI
  // instances, and eight host knobs.
  EXPECT_EQ(budget.Of(family::kKnobMode), 7u * 3 + 2 * 7 + 8);
  EXPECT_EQ(current, budget.Of(family::kKnobMode));
  EXPECT_EQ(recommended, budget.Of(family::kKnobMode));
  // rx_usecs per device, gro_flush_timeout per device and instance, netdev_budget_usecs once.
  EXPECT_EQ(budget.Of(family::kKnobCurrentSeconds), 3u + (3 + 7) + 1);
  // rx_frames and rx_ring (a descriptor holds a packet) per device, netdev_budget and dev_weight
  // once each.
  EXPECT_EQ(budget.Of(family::kKnobCurrentPackets), 2u * 3 + 2);
  // adaptive_rx and napi_threaded per device.
  EXPECT_EQ(budget.Of(family::kKnobCurrentEnabled), 2u * 3);
}

}  // namespace
}  // namespace nictune::metrics
