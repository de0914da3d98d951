// SPDX-License-Identifier: Apache-2.0
// Threaded NAPI: switched on, by hand, for the device whose softirq starves user space on its
// serving CPUs while the rest of the host idles; kept, with the reason, everywhere else.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/policy_threaded.h"
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

TEST(ThreadedPolicyTest, NoIdleCpuElsewhereKeepsSoftirqAndSaysWhy) {
  // The serving CPU's 0.01 is all the host idles: threads would have nowhere to go.
  const std::vector<Recommendation> recs = RecommendThreaded(Starving(0.31, 0), PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].recommended, 0);
  EXPECT_THAT(recs[0].formula, HasSubstr("idles 0.30 CPUs, below 0.50"));
}

TEST(ThreadedPolicyTest, ThreadedDeviceIsKept) {
  const std::vector<Recommendation> recs = RecommendThreaded(Starving(2.5, 1), PolicyConfig{});
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].recommended, 1);
  EXPECT_THAT(recs[0].formula, HasSubstr("kernel threads already"));
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

TEST(ThreadedPolicyTest, OneRecommendationPerDeviceOfManyQueues) {
  Observation obs = Starving(2.5, 0);
  obs.queues.push_back(Queue("eth1", {0.01, 0.10, 0.30, 0.59}, 0));
  obs.queues[1].queue = 1;
  EXPECT_EQ(RecommendThreaded(obs, PolicyConfig{}).size(), 1u);
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
