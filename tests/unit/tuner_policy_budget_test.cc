// SPDX-License-Identifier: Apache-2.0
// Budget and weight policies: seed 000's questions (is the box near livelock, how much CPU is
// left for user space, is the looping rx or tx work) turned into netdev_budget(_usecs),
// dev_weight and the rx/tx biases.
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/policy_budget.h"
#include "tuner/policy_weight.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;

Observation Busy(CpuSplit cpu, uint64_t squeezes_per_s) {
  Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  QueueObservation q;
  q.device = "eth1";
  q.rx_packets = 57000 * 10;  // seed 000: ~57 kpps SYN flood on 100 Mb/s
  q.interrupts = 46000 * 10;
  q.polls = q.interrupts;
  q.rx_work = 850'000;  // seed 000: looping ~85% receive side
  q.tx_work = 150'000;
  q.time_squeeze = squeezes_per_s * 10;
  q.cpu = cpu;
  obs.queues.push_back(q);
  return obs;
}

const Recommendation& Find(const std::vector<Recommendation>& recs, Knob knob) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob) return r;
  }
  static const Recommendation kMissing;
  ADD_FAILURE() << "no recommendation for " << KnobName(knob);
  return kMissing;
}

TEST(BudgetPolicyTest, SoftirqStarvingUserSpaceLowersBothBudgets) {
  // 60% in interrupts (seed 000: 57-63%), user space gets 8%, nothing idle.
  const Observation obs = Busy({0.05, 0.80, 0.08, 0.01}, 50);
  const std::vector<Recommendation> recs = RecommendBudget(obs, PolicyConfig{});
  const Recommendation& budget = Find(recs, Knob::kNetdevBudget);
  const Recommendation& usecs = Find(recs, Knob::kNetdevBudgetUsecs);
  // f = max(1/2, (1 - 0.25 - 0.05) / 0.80) = 0.875
  EXPECT_EQ(budget.recommended, 262);  // floor(300 * 0.875)
  EXPECT_EQ(usecs.recommended, 1750);  // floor(2000 * 0.875)
  EXPECT_THAT(budget.formula, HasSubstr("= 0.875"));
  EXPECT_GT(budget.expected_gain, 0.6);  // (0.25 - 0.08) / 0.25
}

TEST(BudgetPolicyTest, TimeSqueezeWithRoomRaisesBothTogether) {
  const Observation obs = Busy({0.02, 0.20, 0.30, 0.45}, 40);
  const std::vector<Recommendation> recs = RecommendBudget(obs, PolicyConfig{});
  // f = min(2, 0.50 / 0.20) = 2
  EXPECT_EQ(Find(recs, Knob::kNetdevBudget).recommended, 600);
  EXPECT_EQ(Find(recs, Knob::kNetdevBudgetUsecs).recommended, 4000);
}

TEST(BudgetPolicyTest, BudgetUsecsCoversTheTimeTheBudgetTakes) {
  // Slow packets: 0.45 CPU for 57 kpps is 7.9 us each; 540 packets need 5.3 ms > 2 ms * 1.11.
  Observation obs = Busy({0.02, 0.45, 0.30, 0.20}, 40);
  obs.host.netdev_budget_usecs = 2000;
  const std::vector<Recommendation> recs = RecommendBudget(obs, PolicyConfig{});
  const int64_t budget = Find(recs, Knob::kNetdevBudget).recommended;
  EXPECT_EQ(budget, 334);  // ceil(300 * 0.5 / 0.45)
  const double packet_us = 0.45 / 57000 * 1e6;
  EXPECT_GE(static_cast<double>(Find(recs, Knob::kNetdevBudgetUsecs).recommended),
            1.25 * static_cast<double>(budget) * packet_us);
}

TEST(BudgetPolicyTest, QuietHostKeepsBudgets) {
  const std::vector<Recommendation> recs =
      RecommendBudget(Busy({0.01, 0.05, 0.30, 0.60}, 0), PolicyConfig{});
  EXPECT_EQ(Find(recs, Knob::kNetdevBudget).recommended, 300);
  EXPECT_EQ(Find(recs, Knob::kNetdevBudgetUsecs).recommended, 2000);
  EXPECT_THAT(Find(recs, Knob::kNetdevBudget).formula, HasSubstr("-> keep"));
}

TEST(BudgetPolicyTest, NeverPastTheHardCaps) {
  Observation obs = Busy({0.02, 0.10, 0.30, 0.55}, 1000);
  obs.host.netdev_budget = 3000;
  obs.host.netdev_budget_usecs = 30000;
  const std::vector<Recommendation> recs = RecommendBudget(obs, PolicyConfig{});
  EXPECT_EQ(Find(recs, Knob::kNetdevBudget).recommended, 4096);
  EXPECT_EQ(Find(recs, Knob::kNetdevBudgetUsecs).recommended, 32000);
}

// The CPU split judged and the packets its confidence counts come from one queue: an idle
// queue on a busier CPU does not borrow a loaded queue's packets, and among CPUs with equal
// softirq shares the queue with the most packets is the one judged.
TEST(BudgetPolicyTest, ConfidenceCountsThePacketsOfTheQueueJudged) {
  Observation obs = Busy({0.02, 0.30, 0.30, 0.30}, 0);
  obs.queues[0].rx_packets = 200;  // eth1: the busier CPU, few packets
  QueueObservation loaded = obs.queues[0];
  loaded.device = "emu0";
  loaded.rx_packets = 200'000;
  loaded.cpu = {0.02, 0.10, 0.30, 0.50};
  obs.queues.push_back(loaded);
  const std::vector<Recommendation> busier_recs = RecommendBudget(obs, PolicyConfig{});
  const Recommendation& busier = Find(busier_recs, Knob::kNetdevBudget);
  EXPECT_THAT(busier.formula, HasSubstr("eth1: softirq 0.30"));
  EXPECT_THAT(busier.confidence.reason, HasSubstr(", 200 packets"));
  EXPECT_NEAR(busier.confidence.value, 0.02, 1e-9);  // 200 / 10000 packets

  obs.queues[0].cpu = loaded.cpu;  // equal shares: the loaded queue is judged
  const std::vector<Recommendation> tied_recs = RecommendBudget(obs, PolicyConfig{});
  const Recommendation& tied = Find(tied_recs, Knob::kNetdevBudget);
  EXPECT_THAT(tied.formula, HasSubstr("emu0: softirq 0.10"));
  EXPECT_THAT(tied.confidence.reason, HasSubstr(", 200000 packets"));
  EXPECT_DOUBLE_EQ(tied.confidence.value, 1.0);
}

// The biases scale the backlog's quota (process_backlog) and the qdisc's dequeue quota, neither of
// which bounds a driver's NAPI poll: a lopsided rx/tx split of driver polls that hit their quota
// moves neither.
TEST(WeightPolicyTest, BiasesStayAsTheyAreTheyDoNotBoundADriversPoll) {
  for (const auto& [rx_work, tx_work] : {std::pair<uint64_t, uint64_t>{850'000, 150'000},
                                         std::pair<uint64_t, uint64_t>{200'000, 800'000}}) {
    Observation obs = Busy({0.02, 0.30, 0.30, 0.30}, 40);
    obs.queues[0].rx_work = rx_work;
    obs.queues[0].tx_work = tx_work;
    const std::vector<Recommendation> recs = RecommendWeight(obs, PolicyConfig{});
    for (const Knob knob : {Knob::kDevWeightRxBias, Knob::kDevWeightTxBias}) {
      const Recommendation& bias = Find(recs, knob);
      EXPECT_EQ(bias.recommended, bias.current) << bias.formula;
      EXPECT_EQ(bias.expected_gain, 0);
      EXPECT_THAT(bias.formula, HasSubstr("not a driver's NAPI poll"));
    }
  }
}

TEST(WeightPolicyTest, DevWeightHalvesUnderStarvationAndDoublesOnBacklogDrops) {
  std::vector<Recommendation> recs =
      RecommendWeight(Busy({0.05, 0.80, 0.08, 0.01}, 50), PolicyConfig{});
  EXPECT_EQ(Find(recs, Knob::kDevWeight).recommended, 32);
  Observation obs = Busy({0.02, 0.20, 0.30, 0.45}, 0);
  obs.queues[0].drops.backlog = 500;
  recs = RecommendWeight(obs, PolicyConfig{});
  EXPECT_EQ(Find(recs, Knob::kDevWeight).recommended, 128);
}

}  // namespace
}  // namespace nictune::tuner
