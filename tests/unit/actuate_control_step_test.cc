// SPDX-License-Identifier: Apache-2.0
// One controller step through the actuator, with the real tuner::Controller, a fake kernel and a
// real Store: a change is applied and journaled, kept (verified) when its guard window passes,
// rolled back on a regression even after its recommendation is gone, parked when the write fails,
// released (never overwritten) when someone else changes it, and socket buffers are never touched.
#include <cerrno>

#include "agent/actuate/control_step.h"
#include "agent/store/change_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/actuate_fakes.h"

namespace nictune::actuate {
namespace {

using driver::knobs::KnobAddress;
using store::ChangeState;
using testing::ActuatorTestBase;
using ::testing::HasSubstr;
using testing::kRxUsecs;
using testing::kT0;
using ::testing::SizeIs;

tuner::Recommendation RxUsecsTo(int64_t current, int64_t value) {
  tuner::Recommendation rec;
  rec.knob = tuner::Knob::kRxUsecs;
  rec.knob_name = "rx_usecs";
  rec.scope = tuner::Scope::kDevice;
  rec.target = "veth1";
  rec.current = current;
  rec.recommended = value;
  rec.formula = "u_max = 0.9 * 87.5 us - 10 us";
  rec.expected_gain = 0.5;
  rec.confidence = {.value = 1, .reason = "10 samples"};
  return rec;
}

tuner::Recommendation SocketBufferAdvice() {
  tuner::Recommendation rec;
  rec.knob = tuner::Knob::kSoRcvbuf;
  rec.knob_name = "so_rcvbuf";
  rec.scope = tuner::Scope::kSocket;
  rec.target = "udp 10.0.0.2:5000";
  rec.current = 212992;
  rec.recommended = 425984;
  rec.expected_gain = 0.9;
  rec.confidence = {.value = 1, .reason = "10 samples"};
  return rec;
}

// A grown rx ring: recommended to people, never written by the controller.
tuner::Recommendation RingAdvice() {
  tuner::Recommendation rec = RxUsecsTo(512, 1024);
  rec.knob = tuner::Knob::kRxRing;
  rec.knob_name = "rx_ring";
  return rec;
}

class ControlStepTest : public ActuatorTestBase {
 protected:
  void SetUp() override {
    ActuatorTestBase::SetUp();
    knobs_->Set(kRxUsecs, 8);
    OpenJournal();
    actuator_ = std::make_unique<Actuator>(std::vector<driver::knobs::KnobProvider*>{knobs_.get()},
                                           *journal_, kBoot);
    actuator_->ResolveAtStart(PendingPolicy::kRestore, kT0);
  }
  void TearDown() override {
    actuator_.reset();
    ActuatorTestBase::TearDown();
  }

  ControlStepSummary Step(absl::Duration at, const std::vector<tuner::Recommendation>& recs,
                          double drops_per_s) {
    return RunControlStep(*actuator_, controller_, recs, {drops_per_s, 0.30}, kT0 + at);
  }

  tuner::Controller controller_{tuner::ControllerConfig{}};
  std::unique_ptr<Actuator> actuator_;
};

TEST_F(ControlStepTest, AppliesAndVerifiesAfterTheGuardWindow) {
  knobs_->Set({tuner::Knob::kRxRing, "veth1"}, 512);  // a ring the fake would let be written
  ControlStepSummary first =
      Step(absl::ZeroDuration(), {RxUsecsTo(8, 16), SocketBufferAdvice(), RingAdvice()}, 100);
  ASSERT_THAT(first.readings, SizeIs(1))
      << "the socket buffer and the ring are by hand only: never read or written";
  EXPECT_THAT(first.unreadable, SizeIs(0));
  EXPECT_EQ(knobs_->Get({tuner::Knob::kRxRing, "veth1"}), 512);
  ASSERT_THAT(first.results, SizeIs(1));
  EXPECT_EQ(first.results[0].outcome, Outcome::kWritten) << first.results[0].message;
  EXPECT_EQ(knobs_->Get(kRxUsecs), 16);
  EXPECT_THAT(DescribeControlStep(first), HasSubstr("rx_usecs veth1 written"));

  ControlStepSummary guarding = Step(absl::Seconds(10), {RxUsecsTo(16, 16)}, 10);
  EXPECT_THAT(guarding.actions, SizeIs(0));
  EXPECT_THAT(guarding.verified, SizeIs(0));

  ControlStepSummary kept = Step(absl::Seconds(40), {RxUsecsTo(16, 16)}, 0);
  ASSERT_THAT(kept.verified, SizeIs(1));
  std::vector<store::ChangeRecord> pending = Pending();
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].state, ChangeState::kVerified);
  EXPECT_EQ(pending[0].original, 8);
  EXPECT_EQ(pending[0].new_value, 16);
}

// Whatever a provider would allow, the actuator opens no by-hand knob: its writes are a person's.
TEST_F(ControlStepTest, TheActuatorNeverOpensAByHandKnob) {
  knobs_->Set({tuner::Knob::kRxRing, "veth1"}, 512);
  const absl::StatusOr<int64_t> read = actuator_->Read({tuner::Knob::kRxRing, "veth1"});
  EXPECT_EQ(read.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("by hand only"));
}

// A recommendation the controller does not act on is in the summary with why, and nothing is
// written or journaled for it.
TEST_F(ControlStepTest, AHeldRecommendationIsReportedAndWritesNothing) {
  tuner::Recommendation unsure = RxUsecsTo(8, 16);
  unsure.confidence = {.value = 0.05, .reason = "2 samples over 2s, 300 packets"};
  ControlStepSummary step = Step(absl::ZeroDuration(), {unsure}, 100);
  EXPECT_THAT(step.actions, SizeIs(0));
  ASSERT_THAT(step.held, SizeIs(1));
  EXPECT_EQ(step.held[0].recommended, 16);
  EXPECT_THAT(DescribeControlStep(step),
              HasSubstr("0 actions, 1 held, 0 verified, 0 writes failed; rx_usecs veth1: 8 -> 16 "
                        "held: confidence 0.05 < 0.25 (2 samples over 2s, 300 packets)"));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
}

TEST_F(ControlStepTest, ARegressionIsRolledBackEvenAfterTheRecommendationIsGone) {
  ASSERT_THAT(Step(absl::ZeroDuration(), {RxUsecsTo(8, 16)}, 100).results, SizeIs(1));
  ASSERT_EQ(knobs_->Get(kRxUsecs), 16);

  ControlStepSummary worse = Step(absl::Seconds(10), {}, 400);
  ASSERT_THAT(worse.actions, SizeIs(1));
  EXPECT_TRUE(std::holds_alternative<tuner::Rollback>(worse.actions[0]));
  EXPECT_EQ(worse.results[0].outcome, Outcome::kRolledBack) << worse.results[0].message;
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  EXPECT_THAT(actuator_->ManagedKnobs(), SizeIs(0));
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kRolledBack);
  EXPECT_EQ(controller_.ModeOf(kRxUsecs.knob, kRxUsecs.target), tuner::KnobMode::kParked);
}

TEST_F(ControlStepTest, AFailedWriteParksTheKnob) {
  knobs_->FailWrites(kRxUsecs, EIO);
  ControlStepSummary step = Step(absl::ZeroDuration(), {RxUsecsTo(8, 16)}, 100);
  ASSERT_THAT(step.results, SizeIs(1));
  EXPECT_EQ(step.results[0].outcome, Outcome::kFailed);
  EXPECT_THAT(step.results[0].error.message(), HasSubstr("Input/output error (errno 5)"));
  EXPECT_EQ(step.writes_failed, 1);
  EXPECT_EQ(controller_.ModeOf(kRxUsecs.knob, kRxUsecs.target), tuner::KnobMode::kParked);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));

  knobs_->HealWrites(kRxUsecs);
  EXPECT_THAT(Step(absl::Seconds(10), {RxUsecsTo(8, 16)}, 100).actions, SizeIs(0))
      << "parked for the cooldown, not retried every window";
}

TEST_F(ControlStepTest, SomeoneElsesValueIsReleasedAndNeverOverwritten) {
  ASSERT_THAT(Step(absl::ZeroDuration(), {RxUsecsTo(8, 16)}, 100).results, SizeIs(1));
  knobs_->Set(kRxUsecs, 50);  // ethtool -C by hand

  ControlStepSummary released = Step(absl::Seconds(10), {RxUsecsTo(50, 100)}, 100);
  ASSERT_THAT(released.results, SizeIs(1));
  EXPECT_TRUE(std::holds_alternative<tuner::Release>(released.actions[0]));
  EXPECT_EQ(released.results[0].outcome, Outcome::kReleased);
  EXPECT_EQ(controller_.ModeOf(kRxUsecs.knob, kRxUsecs.target), tuner::KnobMode::kReleased);

  for (int window = 2; window < 100; window += 10) {
    Step(absl::Minutes(window), {RxUsecsTo(50, 100)}, 100);
  }
  actuator_->RestoreAll(kT0 + absl::Hours(3));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 50);
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kReleased);
  EXPECT_THAT(all[0].reason, HasSubstr("changed by someone else: was 8 (we wrote 16), now 50"));
}

TEST_F(ControlStepTest, ADeviceThatWentAwayIsReleasedAndOneThatComesBackIsNeverWrittenBack) {
  ASSERT_THAT(Step(absl::ZeroDuration(), {RxUsecsTo(8, 16)}, 100).results, SizeIs(1));
  ASSERT_EQ(knobs_->Get(kRxUsecs), 16);
  knobs_->RemoveDevice(kRxUsecs.target);  // unplugged, or renamed: knobs are found by name

  ControlStepSummary gone = Step(absl::Seconds(10), {RxUsecsTo(16, 32)}, 100);
  ASSERT_THAT(gone.gone, SizeIs(1));
  EXPECT_EQ(gone.gone[0].outcome, Outcome::kReleased);
  EXPECT_THAT(gone.unreadable, SizeIs(0));  // reported once, as released
  EXPECT_THAT(gone.actions, SizeIs(0));
  EXPECT_THAT(DescribeControlStep(gone), HasSubstr("rx_usecs veth1 released: rx_usecs veth1 went "
                                                   "away with our 16"));
  EXPECT_THAT(actuator_->ManagedKnobs(), SizeIs(0));
  EXPECT_THAT(Pending(), SizeIs(0));
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kReleased);
  EXPECT_THAT(all[0].reason, HasSubstr("another one"));
  // Released once: later windows that still cannot read it release nothing more.
  EXPECT_THAT(Step(absl::Seconds(20), {RxUsecsTo(16, 32)}, 100).gone, SizeIs(0));

  // A device comes back under the name holding the very value we wrote to the old one: it is
  // another device, so neither the controller (someone else's value?) nor restore touches it.
  knobs_->AddDeviceBack(kRxUsecs.target);
  knobs_->Set(kRxUsecs, 16);
  const size_t writes = knobs_->writes().size();
  // A recommendation a managed knob would act on (16 -> 32 under drops): still no action.
  ControlStepSummary back = Step(absl::Seconds(30), {RxUsecsTo(16, 32)}, 100);
  EXPECT_THAT(back.readings, SizeIs(1));
  EXPECT_THAT(back.actions, SizeIs(0));
  RestoreReport restore = actuator_->RestoreAll(kT0 + absl::Seconds(40));
  EXPECT_THAT(restore.restored, SizeIs(0));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 16);
  EXPECT_EQ(knobs_->writes().size(), writes);
}

TEST_F(ControlStepTest, AnUnsupportedKnobIsLeftOutOfTheReadings) {
  knobs_->MakeUnsupported(kRxUsecs);
  ControlStepSummary step = Step(absl::ZeroDuration(), {RxUsecsTo(8, 16)}, 100);
  EXPECT_THAT(step.readings, SizeIs(0));
  ASSERT_THAT(step.unreadable, SizeIs(1));
  EXPECT_TRUE(driver::knobs::IsUnsupported(step.unreadable[0].status));
  EXPECT_THAT(step.actions, SizeIs(0));
  EXPECT_THAT(AllChanges(), SizeIs(0));
}

}  // namespace
}  // namespace nictune::actuate
