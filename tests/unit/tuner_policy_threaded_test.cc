// SPDX-License-Identifier: Apache-2.0
// Threaded NAPI: switched on, by hand, for the device whose softirq starves user space on its
// serving CPUs while the rest of the host idles; kept, with the reason, everywhere else.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/policy_budget.h"
#include "tuner/policy_threaded.h"
#include "tuner/policy_weight.h"
#include "tuner/recommend.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

QueueObservation Queue(const char* device, CpuSplit cpu, int32_t threaded) {
  QueueObservation q;
  q.device = device;
  q.rx_packets = 570'000;
  q.interrupts = 460'000;
  q.cpu = cpu;
  q.serving_cpus = 1;
  q.napi_threaded = threaded;
  return q;
}

// One CPU of four serves eth1: its softirq takes 80%, user space 8%, nothing idle; the host idles
// `idle_cpus` CPUs in all.
Observation Starving(double idle_cpus, int32_t threaded) {
  Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  obs.idle_cpus = idle_cpus;
  obs.queues.push_back(Queue("eth1", {0.05, 0.80, 0.08, 0.01}, threaded));
  return obs;
}

const Recommendation* For(const std::vector<Recommendation>& recs, const std::string& device) {
  for (const Recommendation& r : recs) {
    if (r.knob == Knob::kNapiThreaded && r.target == device) return &r;
  }
  return nullptr;
}

TEST(ThreadedPolicyTest, StarvedCpuWithIdleCpusElsewhereSwitchesThreadsOn) {
  const std::vector<Recommendation> recs = RecommendThreaded(Starving(2.51, 0), PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  const Recommendation& r = recs[0];
  EXPECT_EQ(r.scope, Scope::kDevice);
  EXPECT_EQ(r.target, "eth1");
  EXPECT_EQ(r.current, 0);
  EXPECT_EQ(r.recommended, 1);
  // 2.51 idle in all, 0.01 of it on the serving CPU.
  EXPECT_THAT(r.formula, HasSubstr("idles 2.50 CPUs (host 2.51 - serving 1 x 0.01) >= 0.50"));
  EXPECT_THAT(r.expected_effect, HasSubstr("kernel threads"));
  EXPECT_NEAR(r.expected_gain, (0.25 - 0.08) / 0.25, 1e-9);
  EXPECT_THAT(r.unresolved, IsEmpty());
}

TEST(ThreadedPolicyTest, TooLittleIdleElsewhereKeepsSoftirqAndSaysWhy) {
  // 0.31 idle in all, 0.01 of it the serving CPU's: 0.30 elsewhere, less than half a CPU.
  const std::vector<Recommendation> recs = RecommendThreaded(Starving(0.31, 0), PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].recommended, 0);
  EXPECT_THAT(recs[0].formula, HasSubstr("idles 0.30 CPUs, below 0.50"));
  // Half a CPU elsewhere is enough.
  EXPECT_EQ(RecommendThreaded(Starving(0.51, 0), PolicyConfig{})[0].recommended, 1);
}

// A whole-device observation's split is the mean of its serving CPUs: their idle is that mean
// times their number, and only the rest of the host's idle is elsewhere.
TEST(ThreadedPolicyTest, IdleElsewhereLeavesOutEveryServingCpu) {
  Observation obs = Starving(0.6, 0);
  obs.queues[0].serving_cpus = 4;
  obs.queues[0].cpu.idle = 0.04;  // 0.16 of the host's 0.6 idle is on the four serving CPUs
  const std::vector<Recommendation> recs = RecommendThreaded(obs, PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].recommended, 0);
  EXPECT_THAT(recs[0].formula, HasSubstr("idles 0.44 CPUs, below 0.50"));
}

TEST(ThreadedPolicyTest, ThreadedDeviceIsKeptAlsoWhenItsThreadsBusyPoll) {
  for (const int32_t mode : {1, 2}) {
    absl::StatusOr<std::vector<Recommendation>> recs =
        Recommend(Starving(2.5, mode), PolicyConfig{});
    ASSERT_TRUE(recs.ok()) << recs.status();
    const Recommendation* r = For(*recs, "eth1");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->current, mode);
    EXPECT_EQ(r->recommended, mode);
    EXPECT_THAT(r->formula, HasSubstr("kernel threads already"));
  }
}

TEST(ThreadedPolicyTest, QuietCpuKeepsSoftirq) {
  Observation obs = Starving(3.0, 0);
  obs.queues[0].cpu = {0.01, 0.10, 0.30, 0.59};
  const std::vector<Recommendation> recs = RecommendThreaded(obs, PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].recommended, 0);
  EXPECT_THAT(recs[0].formula, HasSubstr("no queue of eth1 starves user space"));
}

TEST(ThreadedPolicyTest, OnlyTheStarvingDeviceSwitchesAndADeviceWithoutNapiGetsNothing) {
  Observation obs = Starving(2.5, 0);
  obs.queues.push_back(Queue("eth0", {0.01, 0.05, 0.30, 0.64}, 0));
  obs.queues.push_back(Queue("tap0", {0.01, 0.05, 0.30, 0.64}, -1));
  const std::vector<Recommendation> recs = RecommendThreaded(obs, PolicyConfig{});
  ASSERT_EQ(recs.size(), 2u);
  ASSERT_NE(For(recs, "eth1"), nullptr);
  ASSERT_NE(For(recs, "eth0"), nullptr);
  EXPECT_EQ(For(recs, "eth1")->recommended, 1);
  EXPECT_EQ(For(recs, "eth0")->recommended, 0);
  EXPECT_EQ(For(recs, "tap0"), nullptr);
}

// Each device is judged on its own busiest queue: a device that starves its CPU gets threads
// whether or not another starves its own harder, and a quiet one says its own split.
TEST(ThreadedPolicyTest, EachDeviceIsJudgedOnItsOwnBusiestQueue) {
  Observation obs = Starving(2.5, 0);
  obs.queues.push_back(Queue("eth2", {0.02, 0.70, 0.10, 0.02}, 0));
  obs.queues.push_back(Queue("eth0", {0.01, 0.05, 0.30, 0.64}, 0));
  const std::vector<Recommendation> recs = RecommendThreaded(obs, PolicyConfig{});
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(For(recs, "eth1")->recommended, 1);
  EXPECT_EQ(For(recs, "eth2")->recommended, 1);
  EXPECT_THAT(For(recs, "eth2")->formula, HasSubstr("softirq 0.70"));
  EXPECT_EQ(For(recs, "eth0")->recommended, 0);
  EXPECT_THAT(For(recs, "eth0")->formula, HasSubstr("eth0: softirq 0.05"));
  EXPECT_DOUBLE_EQ(For(recs, "eth0")->inputs[0].value, 0.05);
}

TEST(ThreadedPolicyTest, OneRecommendationPerDeviceOfManyQueuesTheStarvingOneDeciding) {
  Observation obs = Starving(2.5, 0);
  // Queue 1 starves its CPU; queue 0 is quiet and comes first.
  obs.queues.insert(obs.queues.begin(), Queue("eth1", {0.01, 0.10, 0.30, 0.59}, 0));
  obs.queues[0].queue = 0;
  obs.queues[1].queue = 1;
  const std::vector<Recommendation> recs = RecommendThreaded(obs, PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].recommended, 1);
  EXPECT_THAT(recs[0].formula, HasSubstr("eth1 rx 1: softirq 0.80"));
}

// Threads relieve the starved CPU by moving its polls; a shorter host quota would only share that
// one CPU, and with the threads on it no longer bounds the device's polls: threads first.
TEST(ThreadedPolicyTest, BudgetsAndWeightKeepWhileThreadsComeFirst) {
  const Observation threads = Starving(2.5, 0);
  for (const Recommendation& r : RecommendBudget(threads, PolicyConfig{})) {
    EXPECT_EQ(r.recommended, r.current) << r.knob_name;
    EXPECT_THAT(r.formula, HasSubstr("napi_threaded on eth1")) << r.knob_name;
  }
  const std::vector<Recommendation> weight = RecommendWeight(threads, PolicyConfig{});
  ASSERT_FALSE(weight.empty());
  EXPECT_EQ(weight[0].knob, Knob::kDevWeight);
  EXPECT_EQ(weight[0].recommended, weight[0].current);
  EXPECT_THAT(weight[0].formula, HasSubstr("threads first"));
  // With no idle CPU elsewhere (or a device without NAPI) the quotas come down as before.
  for (const Observation& obs : {Starving(0.31, 0), Starving(2.5, -1)}) {
    for (const Recommendation& r : RecommendBudget(obs, PolicyConfig{})) {
      EXPECT_LT(r.recommended, r.current) << r.knob_name;
    }
  }
}

TEST(ThreadedPolicyTest, RecommendCarriesItAndChecksTheReading) {
  absl::StatusOr<std::vector<Recommendation>> recs = Recommend(Starving(2.5, 0), PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  ASSERT_NE(For(*recs, "eth1"), nullptr);
  EXPECT_EQ(For(*recs, "eth1")->recommended, 1);
  // A mode no kernel has is a corrupt reading, refused with its name.
  absl::StatusOr<std::vector<Recommendation>> bad = Recommend(Starving(2.5, 3), PolicyConfig{});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("napi_threaded = 3"));
  Observation negative_idle = Starving(-1, 0);
  EXPECT_FALSE(Recommend(negative_idle, PolicyConfig{}).ok());
}

}  // namespace
}  // namespace nictune::tuner
