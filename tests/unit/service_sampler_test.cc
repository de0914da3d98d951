// SPDX-License-Identifier: Apache-2.0
// The sampling loop's per-interval work on this machine's real /proc counters (no probes): each
// interval becomes a published report, store rows and /metrics; intervals join into tuner windows
// whose recommendations come from the real tuner; a failing store is counted and never stops
// sampling.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/metrics/exporter.h"
#include "agent/service/health_metrics.h"
#include "agent/service/real_ports.h"
#include "agent/service/sampler.h"
#include "agent/service/service_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/seed001_observation.h"

namespace nictune::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class RecordingHistory : public HistorySink {
 public:
  absl::StatusOr<store::AppendResult> AppendSamples(
      absl::Time ts, const std::vector<store::SeriesSample>& samples) override {
    if (!failure.ok()) return failure;
    append_times.push_back(ts);
    append_sizes.push_back(samples.size());
    return store::AppendResult{.rows_written = static_cast<int64_t>(samples.size())};
  }
  absl::StatusOr<store::MaintenanceReport> Maintain(absl::Time) override {
    if (!failure.ok() && !maintenance_succeeds) return failure;
    ++maintained;
    return store::MaintenanceReport{.caught_up = true};
  }
  absl::Status AppendRecommendations(
      const std::vector<store::RecommendationRecord>& records) override {
    if (!failure.ok()) return failure;
    recommendations.insert(recommendations.end(), records.begin(), records.end());
    return absl::OkStatus();
  }

  absl::Status failure;  // every call fails with it unless ok
  // Maintenance that finds nothing to do writes nothing, and succeeds on a full disk too.
  bool maintenance_succeeds = false;
  std::vector<absl::Time> append_times;
  std::vector<size_t> append_sizes;
  int maintained = 0;
  std::vector<store::RecommendationRecord> recommendations;
};

class NoTopology : public TopologySource {
 public:
  const agent::Topology& Read(const std::vector<std::string>&) override { return topology_; }

 private:
  agent::Topology topology_;
};

// Seed 001's socket on eth0 queue 0, whatever the host measured: the tuner's arithmetic is known.
class Seed001Observations : public ObservationSource {
 public:
  absl::StatusOr<tuner::Observation> Observe(const model::Window& window,
                                             uint32_t samples) override {
    seen_seconds.push_back(window.seconds);
    seen_samples.push_back(samples);
    if (!failure.ok()) return failure;
    return testing_support::Seed001Observation();
  }

  absl::Status failure;
  std::vector<double> seen_seconds;
  std::vector<uint32_t> seen_samples;
};

// Holds back one change every window, as apply mode's controller does with an unsure one.
class HoldingTuning : public TunerWindowSink {
 public:
  void OnTunerWindow(const tuner::Observation&, const std::vector<tuner::Recommendation>&,
                     absl::Time now) override {
    held_ = {{.held = {.knob = tuner::Knob::kRxUsecs, .target = "eth0", .recommended = 87},
              .since = now}};
  }
  std::vector<HeldChange> HeldChanges() override { return held_; }

 private:
  std::vector<HeldChange> held_;
};

SamplerSettings ThreeIntervalWindows(Mode mode) {
  SamplerSettings settings;
  settings.interval = absl::Milliseconds(20);
  settings.window = absl::Milliseconds(60);
  settings.mode = mode;
  settings.policy.margin = 0;
  return settings;
}

class SamplerTest : public ::testing::Test {
 protected:
  void MakeSampler(Mode mode, TunerWindowSink* tuning = nullptr) {
    state_.SetStorePath("/nonexistent/nictune.db");
    sampler_ = std::make_unique<Sampler>(SamplerPorts{.snapshots = &snapshots_,
                                                      .topology = &topology_,
                                                      .history = &history_,
                                                      .observations = &observations_,
                                                      .tuning = tuning},
                                         ThreeIntervalWindows(mode), state_, exporter_, &health_);
  }

  StepOutcome StepAfterPause() {
    usleep(20'000);  // real counters need real time between snapshots
    return sampler_->Step(now_ += absl::Milliseconds(20));
  }

  collect::SnapshotCollector collector_{collect::CollectorPaths{}, nullptr, "unit test: no probes"};
  CollectorSnapshots snapshots_{collector_};
  NoTopology topology_;
  RecordingHistory history_;
  Seed001Observations observations_;
  ServiceState state_{ServiceConfig{.mode = Mode::kRecommend}};
  metrics::MetricsExporter exporter_;
  HealthMetrics health_{exporter_.registry()};
  std::unique_ptr<Sampler> sampler_;
  absl::Time now_ = absl::Now();
};

TEST_F(SamplerTest, IntervalsFeedReportStoreAndMetricsAndJoinIntoTunerWindows) {
  MakeSampler(Mode::kRecommend);
  const StepOutcome first = sampler_->Step(now_);
  EXPECT_FALSE(first.sampled);  // only the starting snapshot
  EXPECT_EQ(state_.LatestReport(), nullptr);

  EXPECT_TRUE(StepAfterPause().sampled);
  const auto report = state_.LatestReport();
  ASSERT_NE(report, nullptr);
  EXPECT_GT((*report)["seconds"].get<double>(), 0.015);
  EXPECT_FALSE((*report)["cpus"].empty());  // /proc/stat of this machine
  // Built once per interval, on the first ask: later readers get the same report.
  EXPECT_EQ(state_.LatestReport(), report);
  EXPECT_FALSE(StepAfterPause().window_closed);
  EXPECT_NE(state_.LatestReport(), report);
  EXPECT_TRUE(state_.Recommendations()->recommendations.empty());
  EXPECT_THAT(state_.Recommendations()->reason, HasSubstr("no tuner window"));

  const StepOutcome third = StepAfterPause();
  EXPECT_TRUE(third.sampled);
  EXPECT_TRUE(third.window_closed);

  // Every interval went to the store with the rows WindowSeries makes of real counters.
  ASSERT_EQ(history_.append_sizes.size(), 3u);
  for (size_t rows : history_.append_sizes) EXPECT_GT(rows, 0u);
  EXPECT_LT(history_.append_times[0], history_.append_times[2]);
  EXPECT_EQ(history_.maintained, 3);

  // The tuner window spans the three intervals, from the first snapshot to the last.
  ASSERT_EQ(observations_.seen_samples.size(), 1u);
  EXPECT_EQ(observations_.seen_samples[0], 3u);
  EXPECT_GT(observations_.seen_seconds[0], 0.055);

  const auto recommendations = state_.Recommendations();
  EXPECT_EQ(recommendations->samples, 3u);
  ASSERT_TRUE(recommendations->window_end.has_value());
  const tuner::Recommendation* usecs = nullptr;
  for (const auto& r : recommendations->recommendations) {
    if (r.knob == tuner::Knob::kRxUsecs) usecs = &r;
  }
  ASSERT_NE(usecs, nullptr) << recommendations->reason;
  EXPECT_EQ(usecs->recommended, 87);  // seed 001 at margin 0: floor(87.5 us)
  ASSERT_EQ(history_.recommendations.size(), recommendations->recommendations.size());
  bool stored_usecs = false;
  for (const auto& record : history_.recommendations) {
    if (record.knob != "rx_usecs") continue;
    stored_usecs = true;
    EXPECT_EQ(record.recommended, 87);
    EXPECT_EQ(record.target, "eth0");
    EXPECT_THAT(nlohmann::json::parse(record.json)["formula"].get<std::string>(),
                HasSubstr("71.14"));
  }
  EXPECT_TRUE(stored_usecs);

  const ServiceStatus status = state_.Status();
  EXPECT_EQ(status.sampling.samples, 3u);
  EXPECT_EQ(status.sampling.windows, 1u);
  EXPECT_EQ(status.sampling.missed_intervals, 0u);
  EXPECT_FALSE(status.sampling.sources.empty());
  EXPECT_TRUE(status.store.healthy);

  const std::string text = exporter_.Text();
  EXPECT_THAT(text, HasSubstr("nictune_samples_total 3\n"));
  EXPECT_THAT(text, HasSubstr("nictune_tuner_windows_total 1\n"));
  EXPECT_THAT(text, HasSubstr("nictune_store_healthy 1\n"));
  EXPECT_THAT(text, HasSubstr("nictune_store_errors_total 0\n"));
  EXPECT_THAT(text, HasSubstr("nictune_softirqs_total"));  // the exporter's own series too
  EXPECT_THAT(sampler_->Summary(), HasSubstr("3 samples, 0 missed, 1 windows"));
}

// What the tuning held back in a window is in the status from the window on.
TEST_F(SamplerTest, TheChangesHeldBackInAWindowAreInTheStatus) {
  HoldingTuning tuning;
  MakeSampler(Mode::kApply, &tuning);
  sampler_->Step(now_);
  StepAfterPause();
  StepAfterPause();
  EXPECT_TRUE(state_.Status().held.empty());
  ASSERT_TRUE(StepAfterPause().window_closed);
  const std::vector<HeldChange> held = state_.Status().held;
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].held.target, "eth0");
  EXPECT_EQ(held[0].since, now_);
}

TEST_F(SamplerTest, AFullDiskIsCountedAndReportedWhileSamplingGoesOn) {
  MakeSampler(Mode::kRecommend);
  sampler_->Step(now_);
  history_.failure = absl::ResourceExhaustedError("append samples: database or disk is full");
  EXPECT_TRUE(StepAfterPause().sampled);
  EXPECT_TRUE(StepAfterPause().sampled);

  ServiceStatus status = state_.Status();
  EXPECT_EQ(status.sampling.samples, 2u);
  EXPECT_FALSE(status.store.healthy);
  EXPECT_EQ(status.store.errors, 4u);  // append and maintenance, twice
  EXPECT_THAT(status.store.last_error, HasSubstr("disk is full"));
  EXPECT_NE(state_.LatestReport(), nullptr);
  std::string text = exporter_.Text();
  EXPECT_THAT(text, HasSubstr("nictune_store_healthy 0\n"));
  EXPECT_THAT(text, HasSubstr("nictune_store_errors_total 4\n"));
  EXPECT_THAT(text, HasSubstr("nictune_samples_total 2\n"));
  EXPECT_THAT(sampler_->Summary(), HasSubstr("store failing (4 errors)"));

  history_.failure = absl::OkStatus();
  StepAfterPause();
  status = state_.Status();
  EXPECT_TRUE(status.store.healthy);
  EXPECT_EQ(status.store.errors, 4u);
  text = exporter_.Text();
  EXPECT_THAT(text, HasSubstr("nictune_store_healthy 1\n"));
  EXPECT_THAT(text, HasSubstr("nictune_store_errors_total 4\n"));
}

TEST_F(SamplerTest, AppendsFailingBetweenMaintenanceThatSucceedsKeepTheStoreUnhealthyAndQuiet) {
  MakeSampler(Mode::kRecommend);
  sampler_->Step(now_);
  history_.failure = absl::ResourceExhaustedError("append samples: database or disk is full");
  history_.maintenance_succeeds = true;
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 5; ++i) {
    StepAfterPause();
    EXPECT_FALSE(state_.Status().store.healthy) << "interval " << i;
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(exporter_.Text(), HasSubstr("nictune_store_healthy 0\n"));
  // One line for the failing appends, none for the maintenance that kept working.
  EXPECT_EQ(log.find("<3>store: append samples"), log.rfind("<3>store: append samples")) << log;
  EXPECT_NE(log.find("<3>store: append samples"), std::string::npos) << log;
  EXPECT_THAT(log, Not(HasSubstr("works again"))) << log;

  history_.failure = absl::OkStatus();
  ::testing::internal::CaptureStderr();
  StepAfterPause();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("store: append samples works again after 4 unlogged failure(s)"));
  EXPECT_TRUE(state_.Status().store.healthy);
}

TEST_F(SamplerTest, ObserveModeClosesWindowsWithoutTheTuner) {
  MakeSampler(Mode::kObserve);
  sampler_->Step(now_);
  for (int i = 0; i < 3; ++i) StepAfterPause();
  EXPECT_EQ(state_.Status().sampling.windows, 1u);
  EXPECT_TRUE(observations_.seen_samples.empty());
  EXPECT_TRUE(history_.recommendations.empty());
  EXPECT_TRUE(state_.Recommendations()->recommendations.empty());
}

TEST_F(SamplerTest, ATunerInputErrorBecomesTheReasonAndSamplingContinues) {
  MakeSampler(Mode::kRecommend);
  observations_.failure =
      absl::NotFoundError("/proc/sys/net/core/netdev_budget: Permission denied (errno 13)");
  sampler_->Step(now_);
  for (int i = 0; i < 4; ++i) StepAfterPause();
  const auto recommendations = state_.Recommendations();
  EXPECT_TRUE(recommendations->recommendations.empty());
  EXPECT_THAT(recommendations->reason, HasSubstr("netdev_budget: Permission denied (errno 13)"));
  const ServiceStatus status = state_.Status();
  EXPECT_EQ(status.sampling.samples, 4u);
  EXPECT_THAT(status.sampling.last_error, HasSubstr("errno 13"));
}

TEST_F(SamplerTest, MissedIntervalsAreCountedOnMetricsAndStatus) {
  MakeSampler(Mode::kRecommend);
  sampler_->Step(now_);
  sampler_->NoteMissed(2);
  EXPECT_EQ(state_.Status().sampling.missed_intervals, 2u);
  EXPECT_THAT(exporter_.Text(), HasSubstr("nictune_missed_intervals_total 2\n"));
}

TEST_F(SamplerTest, ReconfiguringToObserveDropsTheRecommendations) {
  MakeSampler(Mode::kRecommend);
  sampler_->Step(now_);
  for (int i = 0; i < 3; ++i) StepAfterPause();
  ASSERT_FALSE(state_.Recommendations()->recommendations.empty());
  sampler_->Reconfigure(ThreeIntervalWindows(Mode::kObserve));
  EXPECT_TRUE(state_.Recommendations()->recommendations.empty());
  EXPECT_THAT(state_.Recommendations()->reason, HasSubstr("observe mode"));
}

// This host's snapshots with a drop map that stays full: each collection finds 100 more drops
// that had no room.
class FullDropMap : public SnapshotSource {
 public:
  explicit FullDropMap(SnapshotSource& host) : host_(host) {}
  model::Snapshot Collect() override {
    model::Snapshot snapshot = host_.Collect();
    no_room_ += 100;
    snapshot.bpf = driver::BpfCounters{
        .monotonic_ns = snapshot.monotonic_ns,
        .maps = {{.map = "drop_counts", .entries = 8192, .capacity = 8192, .no_room = no_room_}}};
    return snapshot;
  }
  void WatchNapiPollers(std::vector<model::NapiPoller> pollers) override {
    host_.WatchNapiPollers(std::move(pollers));
  }

 private:
  SnapshotSource& host_;
  uint64_t no_room_ = 0;
};

TEST_F(SamplerTest, AFullDropMapIsInStatusOnMetricsAndOnceInTheLog) {
  FullDropMap full(snapshots_);
  sampler_ = std::make_unique<Sampler>(
      SamplerPorts{.snapshots = &full, .topology = &topology_, .history = &history_},
      ThreeIntervalWindows(Mode::kObserve), state_, exporter_, &health_);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 4; ++i) StepAfterPause();
  const std::string log = testing::internal::GetCapturedStderr();

  const std::vector<driver::MapPressure> maps = state_.Status().sampling.bpf_maps;
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].no_room, 400u);
  EXPECT_THAT(exporter_.Text(), HasSubstr("nictune_bpf_map_no_room_total{map=\"drop_counts\"} 400"));
  // Three intervals in which drops found no room, one line: the rest are counted for the next.
  size_t lines = 0;
  for (size_t at = log.find("BPF map drop_counts is full"); at != std::string::npos;
       at = log.find("BPF map drop_counts is full", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << log;
  EXPECT_THAT(log, HasSubstr("(8192 of 8192 keys): 200 events counted without their attribution"));
}

TEST(IntervalsPerWindowTest, RoundsTheRatioAndNeverGoesBelowOne) {
  EXPECT_EQ(IntervalsPerWindow({.interval = absl::Seconds(1), .window = absl::Seconds(10)}), 10u);
  EXPECT_EQ(IntervalsPerWindow({.interval = absl::Milliseconds(200), .window = absl::Seconds(1)}),
            5u);
  EXPECT_EQ(IntervalsPerWindow({.interval = absl::Seconds(3), .window = absl::Seconds(10)}), 3u);
  EXPECT_EQ(IntervalsPerWindow({.interval = absl::Seconds(1), .window = absl::Seconds(1)}), 1u);
}

TEST(ValidateSamplerSettingsTest, NamesTheFlag) {
  EXPECT_TRUE(ValidateSamplerSettings({}).ok());
  const absl::Status short_window =
      ValidateSamplerSettings({.interval = absl::Seconds(2), .window = absl::Seconds(1)});
  EXPECT_THAT(std::string(short_window.message()), HasSubstr("--window=1s: must be at least"));
  const absl::Status fast = ValidateSamplerSettings({.interval = absl::Milliseconds(1)});
  EXPECT_THAT(std::string(fast.message()), HasSubstr("--interval=1ms"));
  SamplerSettings margin;
  margin.policy.margin = 1.0;
  EXPECT_THAT(std::string(ValidateSamplerSettings(margin).message()),
              HasSubstr("--tuner_margin=1"));
}

// Two samples a window reach 0.2 at most, 0.16 with the interrupt cost assumed: apply mode at 0.25
// would hold every change.
TEST(ValidateApplyConfidenceTest, RefusesApplyModeWhoseWindowsCanNeverBeConfidentEnough) {
  const SamplerSettings two{
      .interval = absl::Seconds(1), .window = absl::Seconds(2), .mode = Mode::kApply};
  const absl::Status refused = ValidateApplyConfidence(two, 0.25);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("--window=2s at --interval=1s: a window of 2 samples gives a confidence "
                        "of at most 0.16 (full at 10 samples, x0.8 where the interrupt cost is "
                        "assumed), below --min_confidence=0.25"));
  EXPECT_TRUE(ValidateApplyConfidence(two, 0.16).ok());
  // Three samples reach 0.3, but 0.24 with the cost assumed: still held for ever there.
  SamplerSettings three = two;
  three.window = absl::Seconds(3);
  EXPECT_FALSE(ValidateApplyConfidence(three, 0.25).ok());
  SamplerSettings four = two;
  four.interval = absl::Milliseconds(500);
  EXPECT_TRUE(ValidateApplyConfidence(four, 0.25).ok());
  // Outside apply mode nothing is held, so any window does.
  SamplerSettings recommend = two;
  recommend.mode = Mode::kRecommend;
  EXPECT_TRUE(ValidateApplyConfidence(recommend, 0.25).ok());
  // A threshold outside 0..1 is named as such, not answered with advice on windows.
  EXPECT_THAT(std::string(ValidateApplyConfidence(four, 1.5).message()),
              HasSubstr("--min_confidence=1.5: must be within 0..1"));
}

}  // namespace
}  // namespace nictune::service
