// SPDX-License-Identifier: Apache-2.0
// Properties over random observations (seeded, so a failure reproduces): every recommended value
// within its knob's range and never negative, also with counters near 2^64 and wrapped u32
// counters; related knobs consistent; controller steps bounded.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <variant>
#include <vector>

#include "absl/random/random.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/controller.h"
#include "tuner/limits.h"
#include "tuner/recommend.h"

namespace nictune::tuner {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

class RandomObservations {
 public:
  explicit RandomObservations(uint32_t seed) : gen_(std::seed_seq{seed}) {}

  // A count over the window: zero, ordinary, or one of the ways counters go wrong.
  uint64_t Count(double typical_per_s, double window_s) {
    switch (absl::Uniform(gen_, 0, 10)) {
      case 0:
        return 0;
      case 1:  // a u32 counter that wrapped, subtracted in u64
        return kU64Max - absl::Uniform<uint64_t>(gen_, 0, 1u << 20);
      case 2:  // a u32 counter that wrapped, subtracted in u32
        return (uint64_t{1} << 32) - absl::Uniform<uint64_t>(gen_, 1, 1u << 20);
      case 3:
        return absl::Uniform<uint64_t>(gen_, 0, kU64Max);
      default:
        return static_cast<uint64_t>(absl::Uniform(gen_, 0.0, typical_per_s * window_s));
    }
  }

  double Share() {
    switch (absl::Uniform(gen_, 0, 20)) {
      case 0:
        return std::numeric_limits<double>::quiet_NaN();
      case 1:
        return std::numeric_limits<double>::infinity();
      case 2:
        return -0.1;
      default:
        return absl::Uniform(gen_, 0.0, 0.25);
    }
  }

  double Positive(double typical) {
    switch (absl::Uniform(gen_, 0, 20)) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<double>::denorm_min();
      case 2:
        return std::numeric_limits<double>::max();
      default:
        return absl::Uniform(gen_, 0.0, 2 * typical);
    }
  }

  int64_t Knob(Knob knob, int64_t typical) {
    const KnobRange range = KernelRange(knob);
    switch (absl::Uniform(gen_, 0, 8)) {
      case 0:
        return range.min;
      case 1:
        return std::min<int64_t>(range.max, kInt32Max);
      default:
        return std::clamp<int64_t>(absl::Uniform<int64_t>(gen_, 0, 4 * typical), range.min,
                                   range.max);
    }
  }

  uint32_t U32(uint32_t typical) {
    switch (absl::Uniform(gen_, 0, 8)) {
      case 0:
        return 0;
      case 1:
        return std::numeric_limits<uint32_t>::max();
      default:
        return absl::Uniform<uint32_t>(gen_, 0, 4 * typical);
    }
  }

  Observation Next() {
    Observation obs;
    const double window_s = absl::Uniform(gen_, 0, 4) == 0 ? 0.001 : absl::Uniform(gen_, 1.0, 60);
    obs.window = absl::Seconds(window_s);
    obs.samples = absl::Uniform<uint32_t>(gen_, 0, 20);
    obs.host.netdev_budget = Knob(Knob::kNetdevBudget, 300);
    obs.host.netdev_budget_usecs = Knob(Knob::kNetdevBudgetUsecs, 2000);
    obs.host.dev_weight = Knob(Knob::kDevWeight, 64);
    obs.host.dev_weight_rx_bias = Knob(Knob::kDevWeightRxBias, 1);
    obs.host.dev_weight_tx_bias = Knob(Knob::kDevWeightTxBias, 1);
    obs.host.rmem_default = Knob(Knob::kRmemDefault, 212992);
    obs.host.rmem_max = Knob(Knob::kRmemMax, 212992);
    obs.host.udp_rmem_min = Knob(Knob::kUdpRmemMin, 4096);
    obs.idle_cpus = absl::Uniform(gen_, 0.0, 4.0);
    const int queues = absl::Uniform(gen_, 0, 4);
    for (int i = 0; i < queues; ++i) {
      QueueObservation q;
      q.device = absl::Uniform(gen_, 0, 2) == 0 ? "eth1" : "veth0";
      q.queue = i;
      const double rate = std::pow(10.0, absl::Uniform(gen_, 3.0, 7.5));
      q.rx_packets = Count(rate, window_s);
      q.interrupts = Count(rate / 10, window_s);
      q.polls = Count(rate / 10, window_s);
      q.polls_budget_exhausted = Count(rate / 100, window_s);
      q.rx_work = Count(rate, window_s);
      q.tx_work = Count(rate / 3, window_s);
      q.time_squeeze = Count(100, window_s);
      q.drops = {Count(rate / 50, window_s), Count(rate / 50, window_s), Count(rate / 50, window_s),
                 Count(rate / 50, window_s)};
      q.cpu = {Share(), Share(), Share(), Share()};
      q.interrupt_cost_s = absl::Uniform(gen_, 0, 3) == 0 ? 0 : absl::Uniform(gen_, 1e-7, 2e-5);
      // Per-packet cost and peak rate: unknown, ordinary, or saturating the CPU at the peak.
      q.packet_cost_s = absl::Uniform(gen_, 0, 3) == 0 ? 0 : absl::Uniform(gen_, 1e-8, 2e-6);
      q.rx_peak_rate_pps =
          absl::Uniform(gen_, 0, 2) == 0 ? 0 : rate * absl::Uniform(gen_, 1.0, 8.0);
      q.coalesce.rx_usecs_supported = absl::Uniform(gen_, 0, 3) != 0;
      q.coalesce.rx_frames_supported = absl::Uniform(gen_, 0, 2) == 0;
      q.coalesce.adaptive_rx_supported = absl::Uniform(gen_, 0, 2) == 0;
      q.coalesce.adaptive_rx = q.coalesce.adaptive_rx_supported && absl::Uniform(gen_, 0, 2) == 0;
      q.coalesce.rx_usecs = U32(50);
      q.coalesce.rx_frames = U32(32);
      q.coalesce.rx_usecs_granularity = U32(2);
      q.coalesce.rx_usecs_max = U32(1022);
      q.coalesce.rx_frames_max = U32(256);
      q.coalesce.rx_ring_size = U32(1024);
      q.defer = {absl::Uniform(gen_, 0, 2) == 0, U32(2), static_cast<uint64_t>(U32(20000))};
      q.napi_threaded = absl::Uniform(gen_, -1, 3);  // unknown, softirq, threads, busy-polling
      q.serving_cpus = absl::Uniform<uint32_t>(gen_, 1, 5);
      const int sockets = absl::Uniform(gen_, 0, 4);
      for (int k = 0; k < sockets; ++k) {
        SocketObservation s;
        s.name = "udp socket " + std::to_string(k);
        s.packets = Count(rate / 2, window_s);
        s.truesize_mean_bytes = Positive(2994);
        s.truesize_p99_bytes = Positive(4500);
        s.rcvbuf_bytes =
            absl::Uniform(gen_, 0, 10) == 0 ? kU64Max : absl::Uniform<uint64_t>(gen_, 0, 1 << 24);
        s.peak_fill = absl::Uniform(gen_, 0.0, 1.0);
        s.drops = Count(rate / 100, window_s);
        s.drain_gap_s = Positive(200e-6);
        s.burst_s = Positive(1e-3);
        s.burst_pause_s = Positive(1e-3);
        s.max_packets_per_gap = Positive(rate * 200e-6);
        s.peak_rate_pps = absl::Uniform(gen_, 0, 2) == 0 ? 0 : rate * absl::Uniform(gen_, 0.5, 8.0);
        s.reader_shares_softirq_cpu = absl::Uniform(gen_, 0, 2) == 0;
        s.rcvbuf_locked = absl::Uniform(gen_, 0, 3) == 0;
        q.sockets.push_back(s);
      }
      obs.queues.push_back(q);
    }
    return obs;
  }

 private:
  absl::BitGen gen_;
};

int64_t Find(const std::vector<Recommendation>& recs, Knob knob, int64_t fallback) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob) return r.recommended;
  }
  return fallback;
}

TEST(TunerPropertiesTest, EveryRecommendationIsInRangeAndConsistent) {
  RandomObservations random(20240601);
  int accepted = 0;
  int rejected = 0;
  int changed = 0;
  for (int i = 0; i < 20000; ++i) {
    const Observation obs = random.Next();
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(obs, PolicyConfig{});
    if (!recs.ok()) {
      // Rejected input is named, never an internal inconsistency.
      ASSERT_EQ(recs.status().code(), absl::StatusCode::kInvalidArgument) << recs.status();
      ASSERT_THAT(std::string(recs.status().message()), ::testing::StartsWith("observation "));
      ++rejected;
      continue;
    }
    ++accepted;
    for (const Recommendation& r : *recs) {
      SCOPED_TRACE(r.knob_name + " " + r.target + ": " + r.formula);
      ASSERT_GE(r.recommended, 0);
      ASSERT_TRUE(InRange(r.recommended, KernelRange(r.knob))) << r.recommended;
      if (r.recommended != r.current) {
        ++changed;
        ASSERT_TRUE(InRange(r.recommended, TunerRange(r.knob))) << r.recommended;
      }
      ASSERT_FALSE(r.formula.empty());
      ASSERT_GE(r.confidence.value, 0);
      ASSERT_LE(r.confidence.value, 1);
      ASSERT_GE(r.expected_gain, 0);
      ASSERT_LE(r.expected_gain, 1);
      ASSERT_EQ(r.knob_name, KnobName(r.knob));
    }
    ASSERT_LE(Find(*recs, Knob::kRmemDefault, 0), Find(*recs, Knob::kRmemMax, 0));
    const int64_t budget = Find(*recs, Knob::kNetdevBudget, 0) - obs.host.netdev_budget;
    const int64_t usecs = Find(*recs, Knob::kNetdevBudgetUsecs, 0) - obs.host.netdev_budget_usecs;
    ASSERT_FALSE((budget > 0 && usecs < 0) || (budget < 0 && usecs > 0));
  }
  // Both paths must really be exercised for the property to mean anything.
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(rejected, 2000);
  EXPECT_GT(changed, 2000);
}

TEST(TunerPropertiesTest, ControllerStepsStayBounded) {
  absl::BitGen gen(std::seed_seq{7});
  ControllerConfig config;
  Controller controller(config);
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  std::vector<int64_t> values = {0, 1, 50, kInt32Max};
  int applies = 0;
  for (int i = 0; i < 5000; ++i) {
    std::vector<KnobReading> readings;
    std::vector<Recommendation> recs;
    for (size_t k = 0; k < values.size(); ++k) {
      const std::string target = "q" + std::to_string(k);
      readings.push_back({Knob::kRxUsecs, target, values[k], "", std::nullopt});
      Recommendation r;
      r.knob = Knob::kRxUsecs;
      r.target = target;
      r.current = values[k];
      r.recommended = absl::Uniform<int64_t>(gen, 0, kInt32Max);
      r.expected_gain = absl::Uniform(gen, 0.0, 1.0);
      r.confidence.value = absl::Uniform(gen, 0.0, 1.0);
      recs.push_back(r);
    }
    const Health health{absl::Uniform(gen, 0.0, 10.0), absl::Uniform(gen, 0.0, 1.0)};
    for (const Action& a : controller.Step(now, readings, health, recs)) {
      if (const Rollback* rollback = std::get_if<Rollback>(&a)) {
        values[static_cast<size_t>(rollback->target[1] - '0')] = rollback->value;
      }
      const Apply* apply = std::get_if<Apply>(&a);
      if (apply == nullptr) continue;
      ++applies;
      ASSERT_GE(apply->value, apply->from / 2);
      ASSERT_LE(apply->value, std::max<int64_t>(apply->from, 1) * 2);
      ASSERT_GE(apply->value, 0);
      values[static_cast<size_t>(apply->target[1] - '0')] = apply->value;
    }
    for (KnobReading& reading : readings) {
      reading.value = values[static_cast<size_t>(reading.target[1] - '0')];
    }
    for (const Action& a : controller.Step(now, readings, health, recs)) {
      // A second call in the same instant never changes a knob again, nor mistakes our own
      // write for a person's.
      ASSERT_FALSE(std::holds_alternative<Apply>(a));
      ASSERT_FALSE(std::holds_alternative<Release>(a));
    }
    now += config.window;
  }
  EXPECT_GT(applies, 100);
}

}  // namespace
}  // namespace nictune::tuner
