// SPDX-License-Identifier: Apache-2.0
// The service's apply mode against a fake kernel (files) and a real store: recommend mode writes
// nothing however many windows pass, apply mode carries a recommendation out bounded by the
// controller, the REST actions (apply now, rollback, restore) go through the same actuator, and a
// rollback or restore is not mistaken for a person's change at the next window.
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "agent/metrics/tuning_series.h"
#include "agent/service/tuning.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "tests/unit/actuate_fakes.h"

namespace nictune::service {
namespace {

using actuate::Outcome;
using driver::knobs::KnobAddress;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);
const KnobAddress kRxUsecs{tuner::Knob::kRxUsecs, "veth1"};
constexpr absl::Duration kWindow = absl::Seconds(10);

tuner::Recommendation RxUsecsTo(int64_t current, int64_t value) {
  tuner::Recommendation rec;
  rec.knob = tuner::Knob::kRxUsecs;
  rec.knob_name = "rx_usecs";
  rec.scope = tuner::Scope::kDevice;
  rec.target = kRxUsecs.target;
  rec.current = current;
  rec.recommended = value;
  rec.expected_gain = 0.5;
  rec.confidence = {.value = 1, .reason = "10 samples"};
  rec.formula = "test formula";
  return rec;
}

tuner::Observation QuietWindow() {
  tuner::Observation observation;
  observation.window = kWindow;
  tuner::QueueObservation queue;
  queue.device = kRxUsecs.target;
  queue.cpu.idle = 0.9;
  queue.cpu.softirq = 0.1;
  observation.queues.push_back(queue);
  return observation;
}

class TuningTest : public actuate::testing::ActuatorTestBase {
 protected:
  void SetUp() override {
    ActuatorTestBase::SetUp();
    knobs_->Set(kRxUsecs, 8);
    OpenJournal();
    knobs_->WatchJournal(journal_.get(), kBoot);  // records every write
    actuator_ = std::make_unique<actuate::Actuator>(
        std::vector<driver::knobs::KnobProvider*>{knobs_.get()}, *journal_, kBoot);
    series_ = std::make_unique<metrics::TuningSeries>(registry_);
  }
  void TearDown() override {
    tuning_.reset();
    actuator_.reset();
    ActuatorTestBase::TearDown();
  }
  Tuning& Make(Mode mode) {
    tuning_ = std::make_unique<Tuning>(
        *actuator_, *journal_,
        tuner::ControllerConfig{
            .window = kWindow, .guard = 3 * kWindow, .cooldown = absl::Minutes(10)},
        mode, series_.get());
    return *tuning_;
  }
  std::string Exposition() { return prometheus::TextSerializer().Serialize(registry_.Collect()); }

  prometheus::Registry registry_;
  std::unique_ptr<metrics::TuningSeries> series_;
  std::unique_ptr<actuate::Actuator> actuator_;
  std::unique_ptr<Tuning> tuning_;
};

TEST_F(TuningTest, RecommendModeNeverWritesAndRefusesApplyNow) {
  Tuning& tuning = Make(Mode::kRecommend);
  for (int i = 0; i < 6; ++i) {
    tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + i * kWindow);
  }
  absl::StatusOr<actuate::ControlStepSummary> applied = tuning.ApplyNow(std::nullopt, kT0);
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(applied.status().message(), HasSubstr("recommend mode"));
  EXPECT_TRUE(knobs_->writes().empty());
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_TRUE(AllChanges().empty());
  // The recommendation is still on /metrics beside the value the knob holds, in seconds.
  EXPECT_THAT(Exposition(),
              HasSubstr("nictune_knob_recommended_seconds{knob=\"rx_usecs\",target=\"veth1\"} "
                        "6.4e-05\n"));
  EXPECT_THAT(Exposition(),
              HasSubstr("nictune_knob_current_seconds{knob=\"rx_usecs\",target=\"veth1\"} "
                        "8e-06\n"));
}

TEST_F(TuningTest, ApplyModeStepsTowardTheRecommendationBoundedByTheController) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + kWindow);
  ASSERT_EQ(knobs_->writes().size(), 1u);
  EXPECT_EQ(knobs_->writes()[0].value, 16);  // at most x2 per step
  EXPECT_EQ(knobs_->Get(kRxUsecs), 16);
  ASSERT_EQ(Pending().size(), 1u);
  EXPECT_EQ(Pending()[0].original, 8);
  EXPECT_THAT(Exposition(),
              HasSubstr("nictune_changes_total{knob=\"rx_usecs\",result=\"applied\"} 1"));
  EXPECT_THAT(Exposition(), HasSubstr("mode=\"guarding\",target=\"veth1\"} 1"));
}

TEST_F(TuningTest, ApplyNowForOneKnobNeedsARecommendationNamingIt) {
  Tuning& tuning = Make(Mode::kApply);
  EXPECT_EQ(tuning.ApplyNow(kRxUsecs, kT0).status().code(),
            absl::StatusCode::kFailedPrecondition);  // no window yet
  tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0);
  tuning.SetMode(Mode::kRecommend, actuate::PendingPolicy::kRestore);
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0);
  tuning.SetMode(Mode::kApply, actuate::PendingPolicy::kRestore);
  const KnobAddress other{tuner::Knob::kRxUsecs, "veth9"};
  EXPECT_EQ(tuning.ApplyNow(other, kT0 + kWindow).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(knobs_->writes().empty());

  absl::StatusOr<actuate::ControlStepSummary> applied = tuning.ApplyNow(kRxUsecs, kT0 + kWindow);
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_EQ(applied->results.size(), 1u);
  EXPECT_EQ(applied->results[0].outcome, Outcome::kWritten);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 16);
}

TEST_F(TuningTest, RestoreIsNotMistakenForAPersonsChangeAtTheNextWindow) {
  Tuning& tuning = Make(Mode::kApply);
  tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0);
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + kWindow);
  ASSERT_EQ(knobs_->Get(kRxUsecs), 16);

  const actuate::RestoreReport report = tuning.RestoreAll(kT0 + 2 * kWindow);
  ASSERT_TRUE(report.error.ok()) << report.error;
  ASSERT_EQ(report.restored.size(), 1u);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_TRUE(Pending().empty());

  // The controller forgot its write and parks the knob: no release, no write in the cooldown.
  const size_t writes = knobs_->writes().size();
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + 3 * kWindow);
  EXPECT_EQ(knobs_->writes().size(), writes);
  EXPECT_FALSE(actuator_->IsReleased(kRxUsecs));
  EXPECT_THAT(Exposition(),
              HasSubstr("nictune_changes_total{knob=\"rx_usecs\",result=\"rolled_back\"} 1"));
  // One mode series per knob and target: the one it is in, the guarding series gone.
  EXPECT_THAT(Exposition(), HasSubstr("nictune_knob_mode{knob=\"rx_usecs\",mode=\"parked\","
                                      "target=\"veth1\"} 1"));
  EXPECT_THAT(Exposition(), Not(HasSubstr("mode=\"guarding\"")));
}

TEST_F(TuningTest, RollbackByChangeIdPutsTheOriginalBack) {
  Tuning& tuning = Make(Mode::kApply);
  tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0);
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + kWindow);
  ASSERT_EQ(Pending().size(), 1u);
  const int64_t id = Pending()[0].id;

  EXPECT_EQ(tuning.RollbackChange(id + 100, kT0 + 2 * kWindow).status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<actuate::ActuationResult> rolled = tuning.RollbackChange(id, kT0 + 2 * kWindow);
  ASSERT_TRUE(rolled.ok()) << rolled.status();
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_TRUE(Pending().empty());
  // Closed now: a second rollback of the same change finds nothing pending.
  EXPECT_EQ(tuning.RollbackChange(id, kT0 + 2 * kWindow).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(TuningTest, AValueChangedByHandIsNeverOverwrittenAndSurvivesRestore) {
  Tuning& tuning = Make(Mode::kApply);
  tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0);
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + kWindow);
  ASSERT_EQ(knobs_->Get(kRxUsecs), 16);
  knobs_->Set(kRxUsecs, 50);  // a person
  const size_t writes = knobs_->writes().size();
  for (int i = 2; i < 8; ++i) {
    tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(50, 200)}, kT0 + i * kWindow);
  }
  tuning.RestoreAll(kT0 + 9 * kWindow);
  EXPECT_EQ(knobs_->writes().size(), writes);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 50);
}

TEST_F(TuningTest, ADeviceThatWentAwayIsLoggedOnceAMinuteNotEveryWindow) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 16)}, kT0);
  ASSERT_EQ(knobs_->Get(kRxUsecs), 16);
  knobs_->RemoveDevice(kRxUsecs.target);

  // Ten minutes of windows whose recommendation still names the device.
  ::testing::internal::CaptureStderr();
  for (int i = 1; i <= 60; ++i) {
    tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(16, 32)}, kT0 + i * kWindow);
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> lines = absl::StrSplit(log, '\n', absl::SkipEmpty());
  int released = 0;
  int unreadable = 0;
  for (const std::string& line : lines) {
    released += absl::StrContains(line, "went away") ? 1 : 0;
    unreadable += absl::StrContains(line, "cannot be read") ? 1 : 0;
  }
  EXPECT_EQ(released, 1) << log;
  // One a minute: at 20 s (the window after the release), 80 s, ... 560 s.
  EXPECT_EQ(unreadable, 10) << log;
  EXPECT_EQ(lines.size(), 11u) << log;
  EXPECT_THAT(log, HasSubstr("5 more time(s) since the last report"));
  EXPECT_TRUE(Pending().empty());
}

// A recommendation too unsure to act on is held with nothing written, and said once when the
// hold begins, not every window; once sure it is carried out.
TEST_F(TuningTest, AHeldChangeIsLoggedWhenTheHoldBeginsNotEveryWindow) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  tuner::Recommendation unsure = RxUsecsTo(8, 64);
  unsure.confidence = {.value = 0.1, .reason = "10 samples over 10s, 1000 packets"};
  ::testing::internal::CaptureStderr();
  for (int i = 1; i <= 6; ++i) tuning.OnTunerWindow(QuietWindow(), {unsure}, kT0 + i * kWindow);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(knobs_->writes().empty());
  std::vector<std::string> lines = absl::StrSplit(log, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u) << log;
  EXPECT_THAT(lines[0], HasSubstr("apply mode: rx_usecs veth1: 8 -> 64 held: confidence 0.10 < "
                                  "0.25 (10 samples over 10s, 1000 packets)"));
  // The status shows the hold since the window it began in, however long it lasts.
  std::vector<HeldChange> held = tuning.HeldChanges();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].held.target, "veth1");
  EXPECT_EQ(held[0].held.recommended, 64);
  EXPECT_EQ(held[0].held.why, tuner::HeldFor::kConfidence);
  EXPECT_EQ(held[0].since, kT0 + kWindow);

  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 64)}, kT0 + 7 * kWindow);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 16);
  EXPECT_TRUE(tuning.HeldChanges().empty());
}

// The ring is a person's to change: apply mode refuses it by name, and says how to do it by hand.
TEST_F(TuningTest, ApplyNowRefusesAByHandKnob) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 8)}, kT0 + kWindow);
  const absl::StatusOr<actuate::ControlStepSummary> applied =
      tuning.ApplyNow(KnobAddress{tuner::Knob::kRxRing, "veth1"}, kT0 + kWindow);
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(applied.status().message(), HasSubstr("is by hand only"));
  EXPECT_THAT(applied.status().message(), HasSubstr("nictune recommend --as=ethtool"));
}

// rx_usecs 8 -> 64, held for its confidence (0.1) and for its expected gain (0.01).
tuner::Recommendation UnsureRxUsecs() {
  tuner::Recommendation unsure = RxUsecsTo(8, 64);
  unsure.confidence = {.value = 0.1, .reason = "1 sample"};
  return unsure;
}
tuner::Recommendation SmallGainRxUsecs() {
  tuner::Recommendation small = RxUsecsTo(8, 64);
  small.expected_gain = 0.01;
  return small;
}

// A hold that changes cause is said again, and its time is still the hold's beginning: the knob
// has been held since then.
TEST_F(TuningTest, AHoldThatChangesCauseIsLoggedAgainAndKeepsItsBeginning) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  const tuner::Recommendation unsure = UnsureRxUsecs();
  const tuner::Recommendation small = SmallGainRxUsecs();
  ::testing::internal::CaptureStderr();
  tuning.OnTunerWindow(QuietWindow(), {unsure}, kT0 + kWindow);
  tuning.OnTunerWindow(QuietWindow(), {small}, kT0 + 2 * kWindow);
  tuning.OnTunerWindow(QuietWindow(), {small}, kT0 + 3 * kWindow);
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> lines = absl::StrSplit(log, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << log;
  EXPECT_THAT(lines[1], HasSubstr("held: expected gain 0.01 < 0.05"));
  const std::vector<HeldChange> held = tuning.HeldChanges();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].held.why, tuner::HeldFor::kGain);
  EXPECT_EQ(held[0].since, kT0 + kWindow);
  EXPECT_TRUE(knobs_->writes().empty());
}

// A hold whose cause alternates window by window (a reversal one window, an ineffective step the
// next, as the tuner's wish swings) says each cause once, not a line every window.
TEST_F(TuningTest, AHoldWhoseCauseAlternatesSaysEachCauseOnce) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  const tuner::Recommendation unsure = UnsureRxUsecs();
  const tuner::Recommendation small = SmallGainRxUsecs();
  ::testing::internal::CaptureStderr();
  for (int i = 1; i <= 8; ++i) {
    tuning.OnTunerWindow(QuietWindow(), {i % 2 == 0 ? small : unsure}, kT0 + i * kWindow);
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> lines = absl::StrSplit(log, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << log;
  EXPECT_THAT(lines[0], HasSubstr("held: confidence 0.10 < 0.25"));
  EXPECT_THAT(lines[1], HasSubstr("held: expected gain 0.01 < 0.05"));
  const std::vector<HeldChange> held = tuning.HeldChanges();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].held.why, tuner::HeldFor::kGain) << "the status shows the latest cause";
  EXPECT_EQ(held[0].since, kT0 + kWindow);
}

// Outside apply mode nothing is held, since nothing would be written: a hold does not outlive the
// mode it was made in.
TEST_F(TuningTest, LeavingApplyModeEndsEveryHold) {
  Tuning& tuning = Make(Mode::kApply);
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  tuning.OnTunerWindow(QuietWindow(), {UnsureRxUsecs()}, kT0 + kWindow);
  ASSERT_EQ(tuning.HeldChanges().size(), 1u);
  tuning.SetMode(Mode::kRecommend, actuate::PendingPolicy::kRestore);
  EXPECT_TRUE(tuning.HeldChanges().empty());
  tuning.OnTunerWindow(QuietWindow(), {UnsureRxUsecs()}, kT0 + 2 * kWindow);
  EXPECT_TRUE(tuning.HeldChanges().empty());
}

// A change the guard rolled back, then the device goes, seen in one window whose recommendations
// are `while_gone`, and another device comes up under the name with 5: it is neither written
// within the cooldown nor taken for a person's change of ours, and is tuned afresh after it.
void ExpectANewcomerIsJudgedAfresh(
    Tuning& tuning, actuate::testing::FileKnobs& knobs, const actuate::Actuator& actuator,
    const std::vector<tuner::Recommendation>& while_gone,
    const std::function<std::vector<store::ChangeRecord>()>& pending) {
  ASSERT_TRUE(tuning.ResolveAtStart(actuate::PendingPolicy::kRestore, kT0).error.ok());
  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(8, 16)}, kT0 + kWindow);
  ASSERT_EQ(knobs.Get(kRxUsecs), 16);
  tuner::Observation dropping = QuietWindow();
  dropping.queues[0].drops.socket = 1000;  // 100/s against none: the guard rolls back
  tuning.OnTunerWindow(dropping, {RxUsecsTo(16, 16)}, kT0 + 2 * kWindow);
  ASSERT_EQ(knobs.Get(kRxUsecs), 8);
  ASSERT_TRUE(pending().empty());

  knobs.RemoveDevice(kRxUsecs.target);
  tuning.OnTunerWindow(QuietWindow(), while_gone, kT0 + 3 * kWindow);
  knobs.AddDeviceBack(kRxUsecs.target);
  knobs.Set(kRxUsecs, 5);
  const size_t writes = knobs.writes().size();
  absl::Time now = kT0 + 4 * kWindow;
  for (; now < kT0 + 3 * kWindow + absl::Minutes(10); now += kWindow) {
    tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(5, 10)}, now);
  }
  EXPECT_EQ(knobs.writes().size(), writes) << "written within the cooldown";
  EXPECT_FALSE(actuator.IsReleased(kRxUsecs)) << "the newcomer's 5 taken for a person's change";

  tuning.OnTunerWindow(QuietWindow(), {RxUsecsTo(5, 10)}, now);
  EXPECT_EQ(knobs.Get(kRxUsecs), 10);
  const std::vector<store::ChangeRecord> after = pending();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].original, 5);
}

TEST_F(TuningTest, ANewcomerUnderTheNameOfADeviceWhoseChangeWasRolledBackIsJudgedAfresh) {
  ExpectANewcomerIsJudgedAfresh(Make(Mode::kApply), *knobs_, *actuator_, {RxUsecsTo(8, 16)},
                                [this] { return Pending(); });
}

// The tuner recommends nothing for a device it no longer sees, yet the value we rolled back to is
// still read, so its going is noticed.
TEST_F(TuningTest, ANewcomerIsJudgedAfreshThoughNoRecommendationNamedTheDeviceWhileItWasGone) {
  ExpectANewcomerIsJudgedAfresh(Make(Mode::kApply), *knobs_, *actuator_, {},
                                [this] { return Pending(); });
}

TEST(HealthOfTest, EachDeviceCountsItsDropsOnceAndItsReceiveCpu) {
  tuner::Observation observation;
  observation.window = absl::Seconds(4);
  // eth0's two queues both carry the device's socket, ring and protocol-memory drops (the kernel
  // counts them per device) and each its own CPUs' backlog drops.
  tuner::QueueObservation eth0_q0{.device = "eth0", .queue = 0};
  eth0_q0.drops = {.socket = 10, .ring = 6, .backlog = 2, .proto_mem = 2};
  eth0_q0.cpu = {.hardirq = 0.1, .softirq = 0.3, .user = 0.2, .idle = 0.4};
  tuner::QueueObservation eth0_q1{.device = "eth0", .queue = 1};
  eth0_q1.drops = {.socket = 10, .ring = 6, .backlog = 4, .proto_mem = 2};
  eth0_q1.cpu = {.hardirq = 0, .softirq = 0.2, .user = 0.7, .idle = 0.1};
  tuner::QueueObservation emu0{.device = "emu0", .queue = -1};
  emu0.drops.socket = 20;  // no CPU figures: left out of the CPU means
  observation.queues = {eth0_q0, eth0_q1, emu0};
  const tuner::ScopedHealth health = HealthOf(observation);
  ASSERT_EQ(health.devices.size(), 2u);
  // (10 + 6 + 2) once + 2 + 4 backlog = 24 in 4 s; user time is not the receive path's.
  EXPECT_DOUBLE_EQ(health.devices.at("eth0").drops_per_s, 6.0);
  EXPECT_DOUBLE_EQ(health.devices.at("eth0").cpu_share, (0.4 + 0.2) / 2);
  EXPECT_DOUBLE_EQ(health.devices.at("emu0").drops_per_s, 5.0);
  EXPECT_DOUBLE_EQ(health.devices.at("emu0").cpu_share, 0.0);
  EXPECT_DOUBLE_EQ(health.host.drops_per_s, 11.0);
  EXPECT_DOUBLE_EQ(health.host.cpu_share, 0.3);
}

// A threaded device polls in its kernel threads: their share is the receive path's cost, which
// the softirq share no longer holds.
TEST(HealthOfTest, AThreadedDevicesPollersAreItsReceiveCpu) {
  tuner::Observation observation;
  observation.window = absl::Seconds(2);
  tuner::QueueObservation q{.device = "emu0", .queue = -1};
  q.cpu = {.hardirq = 0.01, .softirq = 0.02, .user = 0.2, .idle = 0.77};
  q.napi_poller_cpu = 0.15;
  q.napi_pollers = 1;
  observation.queues = {q};
  const tuner::ScopedHealth health = HealthOf(observation);
  EXPECT_DOUBLE_EQ(health.devices.at("emu0").cpu_share, 0.01 + 0.02 + 0.15);
  EXPECT_DOUBLE_EQ(health.host.cpu_share, 0.01 + 0.02 + 0.15);
  EXPECT_EQ(health.devices.at("emu0").napi_pollers, 1u);
  EXPECT_EQ(health.host.napi_pollers, 1u);
  // Without /proc/stat's split the pollers' share is still the receive path's.
  observation.queues[0].cpu = {};
  EXPECT_DOUBLE_EQ(HealthOf(observation).devices.at("emu0").cpu_share, 0.15);
}

TEST(HealthOfTest, DropsUpToThePacketsThatArrivedDuringAStallAreTheStallsToExplain) {
  tuner::Observation observation;
  observation.window = absl::Seconds(2);
  // eth0: 20,000 packets in 2 s, 30 ms of it stalled (steal): 300 arrived meanwhile, 150/s. Of
  // its 400 drops (200/s), 150/s are the stall's to explain.
  tuner::QueueObservation eth0{.device = "eth0", .queue = -1};
  eth0.rx_packets = 20000;
  eth0.stall_s = 0.030;
  eth0.drops.socket = 400;
  // emu0: its TAP is in another namespace (no rx_packets); its socket saw 10,000 arrivals. A
  // 10 ms stall brings 50 of them, more than its 20 drops: all 20 (10/s) are explained, no more.
  tuner::QueueObservation emu0{.device = "emu0", .queue = -1};
  emu0.stall_s = 0.010;
  emu0.drops.socket = 20;
  emu0.sockets = {tuner::SocketObservation{.name = "udp 5001", .packets = 10000, .drops = 20}};
  // veth0: dropping, never stalled.
  tuner::QueueObservation veth0{.device = "veth0", .queue = -1};
  veth0.rx_packets = 5000;
  veth0.drops.socket = 8;
  observation.queues = {eth0, emu0, veth0};
  const tuner::ScopedHealth health = HealthOf(observation);
  EXPECT_DOUBLE_EQ(health.devices.at("eth0").drops_per_s, 200.0);
  EXPECT_DOUBLE_EQ(health.devices.at("eth0").stall_drops_per_s, 150.0);
  EXPECT_DOUBLE_EQ(health.devices.at("emu0").stall_drops_per_s, 10.0);
  EXPECT_DOUBLE_EQ(health.devices.at("veth0").stall_drops_per_s, 0.0);
  EXPECT_DOUBLE_EQ(health.host.drops_per_s, 214.0);
  EXPECT_DOUBLE_EQ(health.host.stall_drops_per_s, 175.0);  // (300 + 50) / 2 s, under 214
}

// A stalled reader's drops are no setting's doing either: the guard leaves them out as it does a
// stall's, counted once for a device whose socket is listed on each of its queues.
TEST(HealthOfTest, AStalledReadersDropsAreExplainedOncePerDevice) {
  tuner::Observation observation;
  observation.window = absl::Seconds(10);
  // 10000 pps into 100 packets' worth of buffer (full in 10 ms), unread for 0.51 s: 5000 of its
  // 8000 drops arrived after the fill.
  const tuner::SocketObservation stalled{.name = "udp 5000",
                                         .packets = 100000,
                                         .truesize_mean_bytes = 2000,
                                         .rcvbuf_bytes = 200000,
                                         .drops = 8000,
                                         .open_drain_wait_s = 0.51};
  tuner::QueueObservation q0{.device = "eth0", .queue = 0};
  q0.sockets = {stalled};
  q0.drops.socket = 8000;
  tuner::QueueObservation q1 = q0;
  q1.queue = 1;
  observation.queues = {q0, q1};
  const tuner::ScopedHealth health = HealthOf(observation);
  EXPECT_DOUBLE_EQ(health.devices.at("eth0").drops_per_s, 800.0);
  EXPECT_DOUBLE_EQ(health.devices.at("eth0").stall_drops_per_s, 500.0);
  EXPECT_DOUBLE_EQ(health.host.stall_drops_per_s, 500.0);
}

}  // namespace
}  // namespace nictune::service
