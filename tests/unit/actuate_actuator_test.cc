// SPDX-License-Identifier: Apache-2.0
// The actuator against a fake kernel and a real Store: the original is journaled before every
// write, a read-back that differs puts the original back, a knob someone else changed is never
// written again (nor by restore), restore puts originals back, unsupported knobs are never saved
// and a journal from another boot is never replayed.
#include <cerrno>

#include "agent/actuate/actuator.h"
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
using testing::kBudget;
using testing::kDefer;
using testing::kRxUsecs;
using testing::kT0;
using ::testing::Not;
using ::testing::SizeIs;

tuner::Apply ApplyOf(const KnobAddress& address, int64_t from, int64_t value) {
  return {address.knob, address.target, from, value, absl::StrCat("test: ", from, " -> ", value)};
}
tuner::Rollback RollbackOf(const KnobAddress& address, int64_t from, int64_t value) {
  return {address.knob, address.target, from, value, absl::StrCat("regressed: back to ", value)};
}

class ActuatorTest : public ActuatorTestBase {
 protected:
  void SetUp() override {
    ActuatorTestBase::SetUp();
    knobs_->Set(kRxUsecs, 8);
    knobs_->Set(kBudget, 300);
    knobs_->Set(kDefer, 0);
    OpenJournal();
    knobs_->WatchJournal(journal_.get(), kBoot);
    actuator_ = std::make_unique<Actuator>(std::vector<driver::knobs::KnobProvider*>{knobs_.get()},
                                           *journal_, kBoot);
    RestoreReport resolved = actuator_->ResolveAtStart(PendingPolicy::kRestore, kT0);
    ASSERT_TRUE(resolved.error.ok()) << resolved.error;
  }
  void TearDown() override {
    actuator_.reset();
    ActuatorTestBase::TearDown();
  }

  std::unique_ptr<Actuator> actuator_;
};

TEST_F(ActuatorTest, TheOriginalIsJournaledBeforeEveryWrite) {
  ActuationResult first = actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0);
  ASSERT_EQ(first.outcome, Outcome::kWritten) << first.message << " " << first.error;
  ActuationResult second = actuator_->Apply(ApplyOf(kRxUsecs, 16, 32), kT0 + absl::Seconds(10));
  ASSERT_EQ(second.outcome, Outcome::kWritten) << second.message << " " << second.error;
  EXPECT_EQ(knobs_->Get(kRxUsecs), 32);

  // What the fake kernel saw in the journal at the moment of each write.
  ASSERT_THAT(knobs_->writes(), SizeIs(2));
  const testing::WriteSeen& w1 = knobs_->writes()[0];
  EXPECT_EQ(w1.value, 16);
  ASSERT_THAT(w1.pending_for_knob, SizeIs(1));
  EXPECT_EQ(w1.pending_for_knob[0].state, ChangeState::kJournaled);
  EXPECT_EQ(w1.pending_for_knob[0].original, 8);
  EXPECT_EQ(w1.pending_for_knob[0].id, first.change_id);

  // The second write's own row (carrying the first original) is on disk, and the first row still
  // owes the original until the second is recorded.
  const testing::WriteSeen& w2 = knobs_->writes()[1];
  EXPECT_EQ(w2.value, 32);
  ASSERT_THAT(w2.pending_for_knob, SizeIs(2));
  EXPECT_EQ(w2.pending_for_knob[0].state, ChangeState::kApplied);
  EXPECT_EQ(w2.pending_for_knob[0].new_value, 16);
  EXPECT_EQ(w2.pending_for_knob[1].state, ChangeState::kJournaled);
  EXPECT_EQ(w2.pending_for_knob[1].original, 8);
  EXPECT_EQ(w2.pending_for_knob[1].id, second.change_id);

  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(2));
  EXPECT_EQ(all[0].state, ChangeState::kReleased);
  EXPECT_THAT(all[0].reason, HasSubstr(absl::StrCat("superseded by change ", second.change_id)));
  EXPECT_EQ(all[1].state, ChangeState::kApplied);
  EXPECT_EQ(all[1].original, 8);
  EXPECT_EQ(all[1].new_value, 32);
  EXPECT_EQ(all[1].boot_id, kBoot);
  EXPECT_EQ(all[1].reason, "test: 16 -> 32");
}

// The observer hears of every write that lands, an apply's and a restore's alike, with the value
// read back; a write the kernel refuses is none.
TEST_F(ActuatorTest, TheWriteObserverHearsEveryWriteThatLands) {
  class Recorder : public WriteObserver {
   public:
    void Wrote(const KnobAddress& address, int64_t holds) override {
      heard.push_back(absl::StrCat(KnobKey(address), "=", holds));
    }
    std::vector<std::string> heard;
  } recorder;
  actuator_->SetWriteObserver(&recorder);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0).outcome, Outcome::kWritten);
  knobs_->FailWrites(kBudget, EPERM);
  EXPECT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kFailed);
  const RestoreReport restored = actuator_->RestoreAll(kT0 + absl::Seconds(10));
  ASSERT_THAT(restored.restored, SizeIs(1));
  EXPECT_EQ(recorder.heard,
            (std::vector<std::string>{KnobKey(kRxUsecs) + "=16", KnobKey(kRxUsecs) + "=8"}));
  actuator_->SetWriteObserver(nullptr);
}

TEST_F(ActuatorTest, NothingIsWrittenBeforeTheJournalIsResolved) {
  Actuator fresh({knobs_.get()}, *journal_, kBoot);
  ActuationResult result = fresh.Apply(ApplyOf(kBudget, 300, 600), kT0);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.error.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(knobs_->writes(), SizeIs(0));
  fresh.ResolveAtStart(PendingPolicy::kKeep, kT0);
  EXPECT_EQ(fresh.Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kWritten);
}

TEST_F(ActuatorTest, AValueAlreadyThereIsNotWrittenNorJournaled) {
  ActuationResult result = actuator_->Apply(ApplyOf(kBudget, 300, 300), kT0);
  EXPECT_EQ(result.outcome, Outcome::kUnchanged);
  EXPECT_THAT(knobs_->writes(), SizeIs(0));
  EXPECT_THAT(AllChanges(), SizeIs(0));
}

TEST_F(ActuatorTest, AReadBackThatDiffersPutsTheOriginalBack) {
  knobs_->RoundWritesUpTo(kRxUsecs, 4);  // the "driver" takes 17 as 20, and 8 as 8
  ActuationResult result = actuator_->Apply(ApplyOf(kRxUsecs, 8, 17), kT0);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.error.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(result.message, HasSubstr("wrote 17, read back 20"));
  EXPECT_THAT(result.message, HasSubstr("the original 8 is back"));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kRestored);
  EXPECT_EQ(all[0].new_value, 8);
}

TEST_F(ActuatorTest, ARoundingWithinTheKnobsStepIsTheDriversAndPutsTheOriginalBack) {
  knobs_->RoundWritesUpTo(kRxUsecs, 8);  // 9 -> 16: far from 9, but within the driver's step
  tuner::Apply apply = ApplyOf(kRxUsecs, 8, 9);
  apply.step = 8;
  ActuationResult result = actuator_->Apply(apply, kT0);
  EXPECT_EQ(result.outcome, Outcome::kFailed) << result.message;
  EXPECT_THAT(result.message, HasSubstr("wrote 9, read back 16"));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  EXPECT_FALSE(actuator_->IsReleased(kRxUsecs));
}

TEST_F(ActuatorTest, AValueWrittenBetweenOurWriteAndItsReadBackIsKeptAndNeverRestored) {
  knobs_->SomeoneWritesAfterTheNextWrite(kRxUsecs, 777);
  ActuationResult result = actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0);
  EXPECT_EQ(result.outcome, Outcome::kReleased) << result.message;
  EXPECT_THAT(result.message, HasSubstr("now 777"));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 777) << "the actuator wrote over someone else's value";
  EXPECT_THAT(Pending(), SizeIs(0));
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kReleased);
  EXPECT_TRUE(actuator_->IsReleased(kRxUsecs));

  ActuationResult again = actuator_->Apply(ApplyOf(kRxUsecs, 777, 32), kT0 + absl::Seconds(10));
  EXPECT_EQ(again.outcome, Outcome::kRefused);
  RestoreReport report = actuator_->RestoreAll(kT0 + absl::Seconds(20));
  EXPECT_TRUE(report.error.ok()) << report.error;
  EXPECT_EQ(knobs_->Get(kRxUsecs), 777);
  ASSERT_THAT(knobs_->writes(), SizeIs(1));
}

TEST_F(ActuatorTest, AFailedPutBackStaysOwedWithTheValueTheKernelHolds) {
  knobs_->RoundWritesUpTo(kRxUsecs, 3);  // 16 -> 18, and the put-back 8 -> 9
  ActuationResult result = actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 9);
  std::vector<store::ChangeRecord> pending = Pending();
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].original, 8);
  EXPECT_EQ(pending[0].new_value, 9) << "the journal records what our writes left in the kernel";

  knobs_->RoundWritesUpTo(kRxUsecs, 1);
  RestoreReport report = actuator_->RestoreAll(kT0 + absl::Seconds(1));
  EXPECT_THAT(report.restored, SizeIs(1));
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
}

TEST_F(ActuatorTest, AFailedWriteOwesNothingAndNamesTheErrno) {
  knobs_->FailWrites(kBudget, EIO);
  ActuationResult result = actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_THAT(result.error.message(),
              HasSubstr("write netdev_budget host: Input/output error (errno 5)"));
  EXPECT_EQ(knobs_->Get(kBudget), 300);
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kReleased);
  EXPECT_THAT(all[0].reason, HasSubstr("write of 600 failed"));
  EXPECT_THAT(Pending(), SizeIs(0));

  knobs_->HealWrites(kBudget);
  EXPECT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0 + absl::Seconds(10)).outcome,
            Outcome::kWritten);
  EXPECT_EQ(knobs_->Get(kBudget), 600);
}

TEST_F(ActuatorTest, AnUnsupportedKnobIsReportedAndNeverSaved) {
  knobs_->MakeUnsupported(kRxUsecs);
  absl::StatusOr<int64_t> read = actuator_->Read(kRxUsecs);
  EXPECT_TRUE(driver::knobs::IsUnsupported(read.status())) << read.status();
  ActuationResult result = actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0);
  EXPECT_EQ(result.outcome, Outcome::kUnsupported);
  EXPECT_THAT(AllChanges(), SizeIs(0)) << "no original is saved for an unsupported knob";
  EXPECT_THAT(knobs_->writes(), SizeIs(0));

  // Unsupported only when written (ethtool SET on veth): the row is closed, nothing is owed.
  knobs_->UnsupportedOnWrite(kDefer);
  ActuationResult on_write = actuator_->Apply(ApplyOf(kDefer, 0, 2), kT0);
  EXPECT_EQ(on_write.outcome, Outcome::kUnsupported);
  EXPECT_THAT(on_write.error.message(), HasSubstr("errno 95"));
  EXPECT_THAT(Pending(), SizeIs(0));
  EXPECT_EQ(knobs_->Get(kDefer), 0);
}

TEST_F(ActuatorTest, AKnobChangedSinceTheControllerReadItIsNotWritten) {
  knobs_->Set(kBudget, 450);
  ActuationResult result = actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.error.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(knobs_->Get(kBudget), 450);
  EXPECT_THAT(AllChanges(), SizeIs(0));
}

TEST_F(ActuatorTest, AKnobSomeoneElseChangedIsNeverWrittenAgainNorRestored) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kWritten);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0).outcome, Outcome::kWritten);
  knobs_->Set(kBudget, 450);  // a person, between two windows
  const size_t writes_before = knobs_->writes().size();

  // The controller still believes its 600 is there.
  ActuationResult result = actuator_->Apply(ApplyOf(kBudget, 600, 1200), kT0 + absl::Seconds(10));
  EXPECT_EQ(result.outcome, Outcome::kReleased);
  EXPECT_THAT(result.message,
              HasSubstr("changed by someone else: was 300 (we wrote 600), now 450"));
  EXPECT_TRUE(actuator_->IsReleased(kBudget));
  EXPECT_EQ(actuator_->Apply(ApplyOf(kBudget, 450, 900), kT0 + absl::Seconds(20)).outcome,
            Outcome::kRefused);
  EXPECT_EQ(actuator_->Rollback(RollbackOf(kBudget, 450, 300), kT0 + absl::Seconds(20)).outcome,
            Outcome::kRefused);

  RestoreReport report = actuator_->RestoreAll(kT0 + absl::Seconds(30));
  EXPECT_THAT(report.restored, SizeIs(1));
  EXPECT_EQ(knobs_->Get(kBudget), 450) << "restore leaves someone else's value";
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  for (size_t i = writes_before; i < knobs_->writes().size(); ++i) {
    EXPECT_NE(knobs_->writes()[i].address.knob, tuner::Knob::kNetdevBudget);
  }

  // A restart in the same boot remembers it from the journal.
  Actuator restarted({knobs_.get()}, *journal_, kBoot);
  restarted.ResolveAtStart(PendingPolicy::kKeep, kT0 + absl::Seconds(40));
  EXPECT_TRUE(restarted.IsReleased(kBudget));
  EXPECT_EQ(restarted.Apply(ApplyOf(kBudget, 450, 900), kT0 + absl::Seconds(50)).outcome,
            Outcome::kRefused);
  EXPECT_EQ(knobs_->Get(kBudget), 450);
}

TEST_F(ActuatorTest, AChangeBySomeoneElseDuringRestoreIsLeftAndTheRestContinue) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kWritten);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0).outcome, Outcome::kWritten);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kDefer, 0, 2), kT0).outcome, Outcome::kWritten);
  knobs_->Set(kRxUsecs, 24);            // a person
  knobs_->RemoveDevice(kDefer.target);  // the TAP went away

  RestoreReport report = actuator_->RestoreAll(kT0 + absl::Seconds(5));
  ASSERT_THAT(report.restored, SizeIs(1));
  EXPECT_EQ(report.restored[0].address.knob, tuner::Knob::kNetdevBudget);
  ASSERT_THAT(report.left, SizeIs(2));
  EXPECT_THAT(report.failed, SizeIs(0));
  EXPECT_EQ(knobs_->Get(kBudget), 300);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 24);
  EXPECT_THAT(Pending(), SizeIs(0));
  for (const store::ChangeRecord& row : AllChanges()) {
    if (row.knob == "napi_defer_hard_irqs") {
      EXPECT_EQ(row.state, ChangeState::kReleased);
      EXPECT_THAT(row.reason, HasSubstr("No such device"));
    }
  }
}

TEST_F(ActuatorTest, RestorePutsEveryOriginalBack) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kWritten);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 600, 1200), kT0 + absl::Seconds(10)).outcome,
            Outcome::kWritten);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 8, 4), kT0).outcome, Outcome::kWritten);
  ASSERT_THAT(Pending(), SizeIs(2));

  RestoreReport report = actuator_->RestoreAll(kT0 + absl::Seconds(20));
  EXPECT_THAT(report.restored, SizeIs(2));
  EXPECT_EQ(knobs_->Get(kBudget), 300);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  EXPECT_THAT(actuator_->ManagedKnobs(), SizeIs(0));
  // The restore writes happened while their rows still owed the originals.
  for (const testing::WriteSeen& w : knobs_->writes())
    EXPECT_THAT(w.pending_for_knob, Not(SizeIs(0)));

  // Restoring twice writes nothing.
  const size_t writes = knobs_->writes().size();
  RestoreReport again = actuator_->RestoreAll(kT0 + absl::Seconds(30));
  EXPECT_THAT(again.restored, SizeIs(0));
  EXPECT_EQ(knobs_->writes().size(), writes);
}

TEST_F(ActuatorTest, RollbackPutsBackTheValueBeforeTheChange) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0).outcome, Outcome::kWritten);
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 16, 32), kT0 + absl::Seconds(10)).outcome,
            Outcome::kWritten);

  // Back to an intermediate value: the original is still owed for it.
  ActuationResult back = actuator_->Rollback(RollbackOf(kRxUsecs, 32, 16), kT0 + absl::Seconds(20));
  EXPECT_EQ(back.outcome, Outcome::kRolledBack) << back.message << " " << back.error;
  EXPECT_EQ(knobs_->Get(kRxUsecs), 16);
  std::vector<store::ChangeRecord> pending = Pending();
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].original, 8);
  EXPECT_EQ(pending[0].new_value, 16);

  ActuationResult to_original =
      actuator_->RollbackToOriginal(kRxUsecs, "operator asked", kT0 + absl::Seconds(30));
  EXPECT_EQ(to_original.outcome, Outcome::kRolledBack);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().state, ChangeState::kRolledBack);
  EXPECT_EQ(all.back().new_value, 8);
  EXPECT_EQ(all.back().reason, "operator asked");
}

TEST_F(ActuatorTest, AReleaseWhileTheKernelHoldsOurValueKeepsTheOriginalOwed) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kWritten);
  tuner::Release release{kBudget.knob, kBudget.target, 1200, 600, "unknown", kT0, "stale view"};
  EXPECT_EQ(actuator_->Release(release, kT0).outcome, Outcome::kKept);
  EXPECT_THAT(Pending(), SizeIs(1));
  actuator_->RestoreAll(kT0 + absl::Seconds(1));
  EXPECT_EQ(knobs_->Get(kBudget), 300);

  // A release the kernel agrees with closes the journal and leaves the value.
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0 + absl::Seconds(2)).outcome,
            Outcome::kWritten);
  knobs_->Set(kBudget, 500);
  release.found = 500;
  EXPECT_EQ(actuator_->Release(release, kT0 + absl::Seconds(3)).outcome, Outcome::kReleased);
  EXPECT_THAT(Pending(), SizeIs(0));
  EXPECT_EQ(knobs_->Get(kBudget), 500);
}

TEST_F(ActuatorTest, GuardPassedMarksTheChangeVerified) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kBudget, 300, 600), kT0).outcome, Outcome::kWritten);
  ASSERT_TRUE(actuator_->MarkVerified(kBudget, "guard passed", kT0 + absl::Seconds(30)).ok());
  std::vector<store::ChangeRecord> pending = Pending();
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].state, ChangeState::kVerified);
  EXPECT_EQ(actuator_->MarkVerified(kRxUsecs, "x", kT0).code(), absl::StatusCode::kNotFound);
}

TEST_F(ActuatorTest, ARollbackOutsideApplyModePutsBackWhatThisBootsJournalOwes) {
  ASSERT_EQ(actuator_->Apply(ApplyOf(kRxUsecs, 8, 16), kT0).outcome, Outcome::kWritten);
  // The apply-mode agent is gone (killed); a recommend-mode one never resolves the journal.
  Actuator unresolved({knobs_.get()}, *journal_, kBoot);
  ActuationResult result = unresolved.RollbackToOriginal(kRxUsecs, "rollback by REST", kT0);
  EXPECT_EQ(result.outcome, Outcome::kRolledBack) << result.message;
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kRolledBack);
  // A knob this boot owes nothing is left alone.
  EXPECT_EQ(unresolved.RollbackToOriginal(kBudget, "rollback by REST", kT0).outcome,
            Outcome::kUnchanged);
  EXPECT_EQ(knobs_->Get(kBudget), 300);
}

TEST_F(ActuatorTest, AJournalFromAnotherBootIsNeverReplayed) {
  absl::StatusOr<int64_t> stale =
      journal_->JournalOriginal({"boot-before-reboot", kT0, "netdev_budget", "host", 200, "old"});
  ASSERT_TRUE(stale.ok()) << stale.status();
  ASSERT_TRUE(
      journal_->MarkChange({*stale, kT0, ChangeState::kApplied, 600, "written, then rebooted"})
          .ok());

  RestoreReport report = actuator_->ResolveAtStart(PendingPolicy::kRestore, kT0 + absl::Hours(1));
  ASSERT_TRUE(report.error.ok()) << report.error;
  ASSERT_THAT(report.left, SizeIs(1));
  EXPECT_THAT(report.left[0].message, HasSubstr("never replayed"));
  EXPECT_THAT(knobs_->writes(), SizeIs(0));
  EXPECT_EQ(knobs_->Get(kBudget), 300);
  std::vector<store::ChangeRecord> all = AllChanges();
  ASSERT_THAT(all, SizeIs(1));
  EXPECT_EQ(all[0].state, ChangeState::kReleased);
  EXPECT_THAT(all[0].reason, HasSubstr("stale"));

  // Nor by restore, and it is logged only once: it is no longer pending.
  EXPECT_THAT(actuator_->RestoreAll(kT0 + absl::Hours(2)).left, SizeIs(0));
  EXPECT_THAT(actuator_->ResolveAtStart(PendingPolicy::kRestore, kT0 + absl::Hours(3)).left,
              SizeIs(0));
  EXPECT_THAT(knobs_->writes(), SizeIs(0));
}

}  // namespace
}  // namespace nictune::actuate
