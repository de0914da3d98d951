// SPDX-License-Identifier: Apache-2.0
// Crash safety of the actuator. A child process runs a sequence of changes through a real Store and
// exits on the spot (no destructor, no close: as if SIGKILLed) at each kernel event in turn: before
// each read, before each write and right after each write. After every crash a new Store and
// Actuator over the same database resolve it; every knob must end at its original (policy restore)
// or at the value its pending journal row recorded (policy keep), never in between, and restore
// must then put every original back with SQLite's integrity_check ok. The one crash point with no
// kernel event (between recording a change and closing the row it superseded) and the other
// half-states are built directly in the journal and resolved the same way.
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <set>

#include "agent/actuate/actuator.h"
#include "agent/actuate/pending_knob.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/actuate_fakes.h"

namespace nictune::actuate {
namespace {

using driver::knobs::KnobAddress;
using store::ChangeState;
using testing::ActuatorTestBase;
using testing::FileKnobs;
using testing::kBudget;
using testing::kDefer;
using testing::kRxUsecs;
using testing::kT0;
using ::testing::SizeIs;

const std::map<std::string, int64_t> kOriginals = {
    {"rx_usecs@veth1", 8}, {"netdev_budget@host", 300}, {"napi_defer_hard_irqs@tap7", 0}};
const KnobAddress kAll[] = {kRxUsecs, kBudget, kDefer};

constexpr int kCompletedExitCode = 0;

int64_t OriginalOf(const KnobAddress& address) { return kOriginals.at(KnobKey(address)); }

// What the daemon does in apply mode, one controller action at a time; `from` is read first, as
// the controller's reading is.
void RunSequence(Actuator& actuator) {
  struct Step {
    KnobAddress address;
    int64_t value;
    bool rollback;
  };
  const Step steps[] = {
      {kRxUsecs, 16, false},  {kBudget, 600, false}, {kRxUsecs, 32, false}, {kRxUsecs, 16, true},
      {kBudget, 1200, false}, {kDefer, 2, false},    {kBudget, 300, true},  {kRxUsecs, 24, false},
  };
  absl::Time now = kT0;
  for (const Step& step : steps) {
    now += absl::Seconds(10);
    absl::StatusOr<int64_t> from = actuator.Read(step.address);
    if (!from.ok()) ::_exit(3);
    if (step.rollback) {
      actuator.Rollback({step.address.knob, step.address.target, *from, step.value, "regressed"},
                        now);
    } else {
      actuator.Apply({step.address.knob, step.address.target, *from, step.value, "step"}, now);
    }
  }
}

class ActuatorCrashTest : public ActuatorTestBase {
 protected:
  // Fresh kernel and state for one crash run.
  void Reset() {
    journal_.reset();
    std::filesystem::remove_all(dir_ + "/state");
    for (const KnobAddress& address : kAll) knobs_->Set(address, OriginalOf(address));
  }

  // Runs the sequence in a child that dies at kernel event `crash_at`; returns its exit code.
  int RunChild(int crash_at) {
    const pid_t child = ::fork();
    if (child < 0) return -1;
    if (child == 0) {
      FileKnobs knobs(dir_ + "/knobs");
      knobs.CrashAtEvent(crash_at);
      std::filesystem::create_directories(dir_ + "/state");
      absl::StatusOr<std::unique_ptr<store::Journal>> journal =
          store::Journal::Open(dir_ + "/state", absl::Seconds(5), kT0);
      if (!journal.ok()) ::_exit(2);
      Actuator actuator({&knobs}, **journal, kBoot);
      actuator.ResolveAtStart(PendingPolicy::kRestore, kT0);
      RunSequence(actuator);
      ::_exit(kCompletedExitCode);
    }
    int status = 0;
    if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  }

  // Per knob, the values this boot's journal recorded as written, and whether its newest pending
  // row never got its value (a write in flight).
  struct JournalView {
    std::map<std::string, std::set<int64_t>> recorded;
    std::map<std::string, bool> in_flight;
  };
  JournalView ViewJournal() {
    JournalView view;
    for (const store::ChangeRecord& row : AllChanges()) {
      const std::string key = absl::StrCat(row.knob, "@", row.target);
      if (row.new_value) view.recorded[key].insert(*row.new_value);
    }
    for (const store::ChangeRecord& row : Pending()) {
      view.in_flight[absl::StrCat(row.knob, "@", row.target)] = !row.new_value.has_value();
    }
    return view;
  }

  void CrashAtEveryEventThenResolve(PendingPolicy policy) {
    int half_written_seen = 0;
    int journaled_unwritten_seen = 0;
    int crash_at = 1;
    for (; crash_at < 200; ++crash_at) {
      SCOPED_TRACE(absl::StrCat("crash at kernel event ", crash_at));
      Reset();
      const int code = RunChild(crash_at);
      ASSERT_TRUE(code == FileKnobs::kCrashedExitCode || code == kCompletedExitCode)
          << "child exit code " << code;

      OpenJournal();
      const JournalView view = ViewJournal();
      for (const KnobAddress& address : kAll) {
        const std::string key = KnobKey(address);
        const int64_t kernel = *knobs_->Get(address);
        const bool known =
            kernel == OriginalOf(address) ||
            (view.recorded.count(key) != 0 && view.recorded.at(key).count(kernel) != 0);
        const bool in_flight = view.in_flight.count(key) != 0 && view.in_flight.at(key);
        // Before resolution the only value outside the journal is one written by a change in
        // flight.
        EXPECT_TRUE(known || in_flight) << key << " holds " << kernel;
        if (!known) ++half_written_seen;
        if (known && in_flight) ++journaled_unwritten_seen;
      }

      Actuator actuator({knobs_.get()}, *journal_, kBoot);
      RestoreReport resolved = actuator.ResolveAtStart(policy, kT0 + absl::Hours(1));
      ASSERT_TRUE(resolved.error.ok()) << resolved.error;
      EXPECT_THAT(resolved.failed, SizeIs(0));
      EXPECT_THAT(resolved.left, SizeIs(0)) << "nobody else touched a knob";
      std::vector<store::ChangeRecord> pending = Pending();
      for (const KnobAddress& address : kAll) {
        const int64_t kernel = *knobs_->Get(address);
        std::vector<store::ChangeRecord> rows;
        for (const store::ChangeRecord& row : pending) {
          if (row.knob == tuner::KnobName(address.knob) && row.target == address.target) {
            rows.push_back(row);
          }
        }
        if (policy == PendingPolicy::kRestore || rows.empty()) {
          EXPECT_EQ(kernel, OriginalOf(address)) << KnobKey(address);
          EXPECT_THAT(rows, SizeIs(0));
        } else {
          // One row owes the original, and it recorded exactly what the kernel holds.
          ASSERT_THAT(rows, SizeIs(1)) << KnobKey(address);
          EXPECT_EQ(rows[0].new_value, kernel) << KnobKey(address);
          EXPECT_EQ(rows[0].original, OriginalOf(address));
        }
      }
      RestoreReport restored = actuator.RestoreAll(kT0 + absl::Hours(2));
      EXPECT_THAT(restored.failed, SizeIs(0));
      for (const KnobAddress& address : kAll) {
        EXPECT_EQ(knobs_->Get(address), OriginalOf(address)) << KnobKey(address);
      }
      EXPECT_THAT(Pending(), SizeIs(0));
      journal_.reset();
      EXPECT_EQ(testing::IntegrityCheck(dir_ + "/state/" + store::kJournalFileName), "ok");
      if (code == kCompletedExitCode) break;
    }
    RecordProperty("crash_points", crash_at - 1);
    RecordProperty("half_written_seen", half_written_seen);
    RecordProperty("journaled_unwritten_seen", journaled_unwritten_seen);
    EXPECT_LT(crash_at, 200) << "the sequence never completed";
    EXPECT_GT(crash_at, 20) << "the sequence has more kernel events than that";
    // The runs did reach both half-states the journal must resolve.
    EXPECT_GT(half_written_seen, 0);
    EXPECT_GT(journaled_unwritten_seen, 0);
  }
};

TEST_F(ActuatorCrashTest, ACrashAtAnyKernelEventResolvesToTheOriginalsUnderRestore) {
  CrashAtEveryEventThenResolve(PendingPolicy::kRestore);
}

TEST_F(ActuatorCrashTest, ACrashAtAnyKernelEventResolvesToTheLastRecordedValueUnderKeep) {
  CrashAtEveryEventThenResolve(PendingPolicy::kKeep);
}

// A half-state written straight into the journal: rows of one knob (original 8), oldest first,
// each with the value it recorded or none (journaled, write not recorded), and the kernel's value.
struct HalfState {
  const char* name;
  std::vector<std::optional<int64_t>> rows;
  int64_t kernel;
  int64_t after_restore;  // policy restore
  int64_t after_keep;     // policy keep
};

class ActuatorHalfStateTest : public ActuatorTestBase,
                              public ::testing::WithParamInterface<HalfState> {};

TEST_P(ActuatorHalfStateTest, ResolvesToTheOriginalOrTheLastRecordedValue) {
  const HalfState& state = GetParam();
  for (PendingPolicy policy : {PendingPolicy::kRestore, PendingPolicy::kKeep}) {
    SCOPED_TRACE(policy == PendingPolicy::kRestore ? "policy restore" : "policy keep");
    journal_.reset();
    std::filesystem::remove_all(dir_ + "/state");
    OpenJournal();
    for (const std::optional<int64_t>& value : state.rows) {
      absl::StatusOr<int64_t> id =
          journal_->JournalOriginal({kBoot, kT0, "rx_usecs", "veth1", 8, "step"});
      ASSERT_TRUE(id.ok()) << id.status();
      if (value) {
        ASSERT_TRUE(journal_->MarkChange({*id, kT0, ChangeState::kApplied, *value, "step"}).ok());
      }
    }
    knobs_->Set(kRxUsecs, state.kernel);

    Actuator actuator({knobs_.get()}, *journal_, kBoot);
    RestoreReport report = actuator.ResolveAtStart(policy, kT0 + absl::Minutes(1));
    EXPECT_THAT(report.failed, SizeIs(0));
    const int64_t want = policy == PendingPolicy::kRestore ? state.after_restore : state.after_keep;
    EXPECT_EQ(knobs_->Get(kRxUsecs), want);
    std::vector<store::ChangeRecord> pending = Pending();
    // Someone else's value (a restore leaves it) is released: nothing is owed for it.
    const bool owed = want != 8 && state.after_restore == 8;
    if (!owed) {
      EXPECT_THAT(pending, SizeIs(0));
    } else {
      ASSERT_THAT(pending, SizeIs(1));
      EXPECT_EQ(pending[0].new_value, want);
      ASSERT_THAT(actuator.ManagedKnobs(), SizeIs(1));
    }

    // Restore afterwards: the original, unless someone else's value is there.
    actuator.RestoreAll(kT0 + absl::Minutes(2));
    EXPECT_EQ(knobs_->Get(kRxUsecs), state.after_restore);
    EXPECT_THAT(Pending(), SizeIs(0));
  }
}

// An agent died between writing a knob and marking its row applied; a later agent outside apply
// mode (journal unresolved) is asked to roll the knob back: the original goes back and the row
// closes rolled_back, so nothing stays owed for a value no longer in the kernel.
TEST_F(ActuatorTestBase, ARollbackClosesARowWhoseWriteLandedUnrecorded) {
  OpenJournal();
  absl::StatusOr<int64_t> id =
      journal_->JournalOriginal({kBoot, kT0, "rx_usecs", "veth1", 8, "step"});
  ASSERT_TRUE(id.ok()) << id.status();
  knobs_->Set(kRxUsecs, 16);

  Actuator actuator({knobs_.get()}, *journal_, kBoot);
  const ActuationResult result =
      actuator.RollbackToOriginal(kRxUsecs, "operator", kT0 + absl::Minutes(1));
  EXPECT_TRUE(result.error.ok()) << result.error;
  EXPECT_EQ(result.outcome, Outcome::kRolledBack);
  EXPECT_EQ(knobs_->Get(kRxUsecs), 8);
  EXPECT_THAT(Pending(), SizeIs(0));
  std::vector<store::ChangeRecord> rows = AllChanges();
  ASSERT_THAT(rows, SizeIs(1));
  EXPECT_EQ(rows[0].id, *id);
  EXPECT_EQ(rows[0].state, ChangeState::kRolledBack);
}

INSTANTIATE_TEST_SUITE_P(
    CrashPoints, ActuatorHalfStateTest,
    ::testing::Values(HalfState{"journaled_kernel_untouched", {std::nullopt}, 8, 8, 8},
                      HalfState{"first_write_landed_unrecorded", {std::nullopt}, 16, 8, 8},
                      HalfState{"applied", {16}, 16, 8, 16},
                      HalfState{"next_journaled_kernel_untouched", {16, std::nullopt}, 16, 8, 16},
                      HalfState{"next_write_landed_unrecorded", {16, std::nullopt}, 32, 8, 16},
                      HalfState{"next_recorded_superseded_not_closed", {16, 32}, 32, 8, 32},
                      HalfState{"someone_else_after_our_write", {16}, 50, 50, 50},
                      HalfState{"someone_else_after_two_writes", {16, 32}, 50, 50, 50}),
    [](const ::testing::TestParamInfo<HalfState>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(PendingKnobTest, ClassifiesTheKernelValueAgainstTheRows) {
  PendingKnob knob;
  knob.address = kRxUsecs;
  knob.original = 8;
  store::ChangeRecord applied;
  applied.new_value = 16;
  applied.state = ChangeState::kApplied;
  store::ChangeRecord journaled;
  knob.rows = {applied};
  EXPECT_EQ(ClassifyKernelValue(knob, 8), KernelHolds::kOriginal);
  EXPECT_EQ(ClassifyKernelValue(knob, 16), KernelHolds::kOurValue);
  EXPECT_EQ(ClassifyKernelValue(knob, 32), KernelHolds::kSomeoneElses);
  knob.rows = {applied, journaled};
  EXPECT_EQ(ClassifyKernelValue(knob, 32), KernelHolds::kHalfWritten);
  EXPECT_EQ(LastRecordedValue(knob), 16);
  knob.rows = {journaled};
  EXPECT_EQ(LastRecordedValue(knob), std::nullopt);

  store::ChangeRecord other = applied;
  other.knob = "rx_usecs";
  other.target = "veth1";
  store::ChangeRecord unknown = applied;
  unknown.knob = "rx_jiffies";
  PendingByKnob grouped = GroupPendingByKnob({other, unknown, other});
  ASSERT_THAT(grouped.knobs, SizeIs(1));
  EXPECT_THAT(grouped.knobs[0].rows, SizeIs(2));
  EXPECT_THAT(grouped.unknown_knob, SizeIs(1));
}

}  // namespace
}  // namespace nictune::actuate
