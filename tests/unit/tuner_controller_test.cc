// SPDX-License-Identifier: Apache-2.0
// The apply-mode controller driven by a fake clock: bounded steps, hysteresis, guard window with
// rollback and park, release on a foreign write, at most one reversal per cooldown.
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/controller.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class FakeClock {
 public:
  absl::Time Now() const { return now_; }
  void Advance(absl::Duration d) { now_ += d; }

 private:
  absl::Time now_ = absl::FromUnixSeconds(1'700'000'000);
};

Recommendation Rec(Knob knob, const std::string& target, int64_t current, int64_t recommended,
                   double gain) {
  Recommendation r;
  r.knob = knob;
  r.knob_name = std::string(KnobName(knob));
  r.target = target;
  r.current = current;
  r.recommended = recommended;
  r.expected_gain = gain;
  r.confidence = {.value = 1, .reason = "10 samples over 10s, 80000 packets"};
  r.formula = "test formula";
  return r;
}

// A kernel knob the actuator writes: what the controller reads back next window.
struct FakeKnob {
  Knob knob = Knob::kRxUsecs;
  std::string target = "eth0";
  int64_t value = 0;

  KnobReading Read() const { return {knob, target, value, "", std::nullopt}; }
  void Carry(const std::vector<Action>& actions) {
    for (const Action& a : actions) {
      const auto* apply = std::get_if<Apply>(&a);
      if (apply != nullptr && apply->knob == knob && apply->target == target) value = apply->value;
      const auto* rollback = std::get_if<Rollback>(&a);
      if (rollback != nullptr && rollback->knob == knob && rollback->target == target) {
        value = rollback->value;
      }
    }
  }
};

// Forty healthy windows of an rx-usecs knob at `start` recommended `recommended` in steps of
// `step`: what the controller wrote, each write bounded to x2 or /2 of the value before it, and
// the knob's value at the end.
struct Walk {
  std::vector<int64_t> written;
  int64_t final_value = 0;
};
Walk WalkToward(int64_t start, int64_t recommended, int64_t step) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", start};
  const Health healthy{0, 0.2};
  Walk walk;
  for (int i = 0; i < 40; ++i) {
    Recommendation rec = Rec(Knob::kRxUsecs, "eth0", knob.value, recommended, 0.5);
    rec.step = step;
    const std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, healthy, {rec});
    EXPECT_LE(actions.size(), 1u);
    for (const Action& a : actions) {
      const Apply& apply = std::get<Apply>(a);
      EXPECT_LE(apply.value, 2 * apply.from);
      EXPECT_GE(apply.value, apply.from / 2);
      EXPECT_EQ(apply.step, step) << "the actuator tells the driver's rounding by it";
      walk.written.push_back(apply.value);
    }
    knob.Carry(actions);
    clock.Advance(config.window);
  }
  walk.final_value = knob.value;
  return walk;
}

TEST(ControllerTest, StepsAreBoundedAndOnePerWindow) {
  const Walk walk = WalkToward(10, 78, 1);
  // 10 -> 20 -> 40 -> 78, each after the previous guard window ended.
  EXPECT_EQ(walk.written, (std::vector<int64_t>{20, 40, 78}));
  EXPECT_EQ(walk.final_value, 78);
}

// ixgbe takes rx-usecs in 2 us steps: halving 102 us would write 51, which the driver rounds, and
// the value read back would be no value the agent wrote. Each bounded step stays on the steps.
TEST(ControllerTest, BoundedStepsStayOnTheDriversGranularity) {
  // 102 -> 52 (51 rounded up, within the halving) -> 26 -> 20.
  EXPECT_EQ(WalkToward(102, 20, 2).written, (std::vector<int64_t>{52, 26, 20}));
}

TEST(ControllerTest, AChangeIsJudgedOnItsOwnDeviceAndASysctlOnTheHost) {
  // eth0's rx-usecs and the host's netdev_budget both changed; in their guard windows another
  // device (emu0) starts dropping and the host's drops rise with it. The device knob is judged
  // on eth0, which stayed calm, and is kept; the sysctl acts on every device and is rolled back.
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob usecs{Knob::kRxUsecs, "eth0", 100};
  FakeKnob budget{Knob::kNetdevBudget, "host", 300};
  ScopedHealth calm{.host = {0, 0.2}, .devices = {{"eth0", {0, 0.1}}, {"emu0", {0, 0.1}}}};
  std::vector<Action> actions = controller.Step(
      clock.Now(), {usecs.Read(), budget.Read()}, calm,
      {Rec(Knob::kRxUsecs, "eth0", 100, 80, 0.5), Rec(Knob::kNetdevBudget, "host", 300, 600, 0.5)});
  ASSERT_THAT(actions, SizeIs(2));
  usecs.Carry(actions);
  budget.Carry(actions);
  ScopedHealth emu0_drops = calm;
  emu0_drops.devices["emu0"] = {5000, 0.1};
  emu0_drops.host = {5000, 0.2};
  clock.Advance(config.window);
  actions = controller.Step(clock.Now(), {usecs.Read(), budget.Read()}, emu0_drops, {});
  ASSERT_THAT(actions, SizeIs(1));
  const auto* rollback = std::get_if<Rollback>(&actions[0]);
  ASSERT_NE(rollback, nullptr);
  EXPECT_EQ(rollback->knob, Knob::kNetdevBudget);
  EXPECT_EQ(rollback->value, 300);
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "eth0"), KnobMode::kGuarding);
  // Host 5000 drops/s, eth0 0: each answer tells which reading For took.
  EXPECT_EQ(emu0_drops.For(Knob::kRxUsecs, "eth9 rx 2").drops_per_s, 5000);  // unlisted: host's
  EXPECT_EQ(emu0_drops.For(Knob::kRxUsecs, "eth0 rx 0").drops_per_s, 0);     // a queue's device
  EXPECT_EQ(emu0_drops.For(Knob::kNetdevBudget, "host").drops_per_s, 5000);  // a sysctl: host's
}

TEST(ControllerTest, AKnobThatIsOffAtZeroIsSwitchedOnAndOffWithoutSteps) {
  // rx-frames 0 is "no frame limit": 0 -> 2 -> 4 ... would raise the interrupt rate 30-fold on
  // the way to 75, so switching it on goes to the recommendation at once; other knobs still step.
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob frames{Knob::kRxFrames, "eth0", 0};
  FakeKnob usecs{Knob::kRxUsecs, "eth0", 0};
  const Health healthy{0, 0.2};
  std::vector<Action> actions = controller.Step(
      clock.Now(), {frames.Read(), usecs.Read()}, healthy,
      {Rec(Knob::kRxFrames, "eth0", 0, 75, 0.5), Rec(Knob::kRxUsecs, "eth0", 0, 50, 0.5)});
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(std::get<Apply>(actions[0]).value, 75);
  EXPECT_EQ(std::get<Apply>(actions[1]).value, 2);  // rx-usecs 0 is not "off": max(0, 1) * 2
  frames.Carry(actions);
  usecs.Carry(actions);
  for (absl::Duration t; t <= config.guard; t += config.window) {  // both kept after the guard
    clock.Advance(config.window);
    EXPECT_THAT(controller.Step(clock.Now(), {frames.Read(), usecs.Read()}, healthy, {}),
                IsEmpty());
  }
  clock.Advance(config.window);
  actions = controller.Step(clock.Now(), {frames.Read(), usecs.Read()}, healthy,
                            {Rec(Knob::kRxFrames, "eth0", 75, 0, 0.5)});
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(std::get<Apply>(actions[0]).value, 0);  // off again, not 37
}

TEST(ControllerTest, AWindowCloseThatComesMillisecondsEarlyStillEndsTheGuardAndTheWindow) {
  ControllerConfig config;
  config.window = absl::Seconds(2);
  config.guard = absl::Seconds(2);
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 8192};
  const Health dropping{6000, 0.2};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, dropping,
                             {Rec(Knob::kRxUsecs, "eth0", 8192, 2814, 1.0)}));
  ASSERT_EQ(knob.value, 4096);
  clock.Advance(config.window - absl::Milliseconds(3));  // the next close, 3 ms early
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{1500, 0.2},
                             {Rec(Knob::kRxUsecs, "eth0", 4096, 2814, 1.0)}));
  EXPECT_EQ(knob.value, 2814);  // guard kept 4096 and the next step followed in the same window
  clock.Advance(config.window / 2);  // half a window: not a window
  EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.2},
                              {Rec(Knob::kRxUsecs, "eth0", 2814, 2000, 1.0)}),
              IsEmpty());
}

TEST(ControllerTest, HysteresisIgnoresSmallGains) {
  Controller controller(ControllerConfig{});
  FakeClock clock;
  FakeKnob knob{Knob::kNetdevBudget, "host", 300};
  EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{},
                              {Rec(Knob::kNetdevBudget, "host", 300, 400, 0.01)}),
              IsEmpty());
  ASSERT_THAT(controller.LastHeld(), SizeIs(1));
  EXPECT_EQ(controller.LastHeld()[0].recommended, 400);
  EXPECT_THAT(controller.LastHeld()[0].reason,
              HasSubstr("netdev_budget host: 300 -> 400 held: expected gain 0.01 < 0.05"));
  EXPECT_THAT(controller.Step(clock.Now() + absl::Seconds(10), {knob.Read()}, Health{},
                              {Rec(Knob::kNetdevBudget, "host", 300, 400, 0.30)}),
              SizeIs(1));
  EXPECT_THAT(controller.LastHeld(), IsEmpty());
}

// A window of a few packets (or fewer intervals than it holds) is not acted on, however large
// the gain it predicts; the same recommendation at full confidence is.
TEST(ControllerTest, ALowConfidenceRecommendationIsHeldWithItsReason) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 50};
  Recommendation unsure = Rec(Knob::kRxUsecs, "eth0", 50, 100, 0.9);
  unsure.confidence = {.value = 0.12, .reason = "10 samples over 10s, 1200 packets"};
  EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{}, {unsure}), IsEmpty());
  ASSERT_THAT(controller.LastHeld(), SizeIs(1));
  EXPECT_THAT(controller.LastHeld()[0].reason,
              HasSubstr("rx_usecs eth0: 50 -> 100 held: confidence 0.12 < 0.25 (10 samples over "
                        "10s, 1200 packets)"));
  EXPECT_EQ(knob.value, 50);

  // Just at the threshold it acts, and says so in the Apply's reason.
  clock.Advance(config.window);
  Recommendation sure = unsure;
  sure.confidence.value = config.min_confidence;
  const std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, Health{}, {sure});
  ASSERT_THAT(actions, SizeIs(1));
  EXPECT_THAT(std::get<Apply>(actions[0]).reason, HasSubstr("confidence 0.25 >= 0.25"));
  EXPECT_THAT(controller.LastHeld(), IsEmpty());
}

TEST(ControllerTest, InducedRegressionRollsBackWithinOneGuardWindowAndParks) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 50};
  const Health baseline{0.0, 0.30};
  std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, baseline,
                                                {Rec(Knob::kRxUsecs, "eth0", 50, 100, 0.5)});
  ASSERT_THAT(actions, SizeIs(1));
  knob.Carry(actions);
  const absl::Time applied_at = clock.Now();
  ASSERT_EQ(knob.value, 100);
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "eth0"), KnobMode::kGuarding);

  // The change makes the socket overflow: drops appear in the next window.
  bool rolled_back = false;
  for (int i = 0; i < 10 && !rolled_back; ++i) {
    clock.Advance(config.window);
    actions = controller.Step(clock.Now(), {knob.Read()}, Health{5000, 0.30},
                              {Rec(Knob::kRxUsecs, "eth0", knob.value, 100, 0.5)});
    for (const Action& a : actions) {
      if (const auto* rollback = std::get_if<Rollback>(&a)) {
        rolled_back = true;
        EXPECT_EQ(rollback->from, 100);
        EXPECT_EQ(rollback->value, 50);
        EXPECT_THAT(rollback->reason, HasSubstr("drops 5000.00/s vs baseline 0.00/s"));
      }
    }
    knob.Carry(actions);
  }
  ASSERT_TRUE(rolled_back);
  EXPECT_LE(clock.Now() - applied_at, config.guard);
  EXPECT_EQ(knob.value, 50);
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "eth0"), KnobMode::kParked);

  // Parked: the same recommendation is ignored until the cooldown ends, then tried again.
  const absl::Time parked_at = clock.Now();
  absl::Time retried_at = absl::InfiniteFuture();
  while (clock.Now() < parked_at + 2 * config.cooldown && retried_at == absl::InfiniteFuture()) {
    clock.Advance(config.window);
    actions = controller.Step(clock.Now(), {knob.Read()}, baseline,
                              {Rec(Knob::kRxUsecs, "eth0", knob.value, 100, 0.5)});
    if (!actions.empty()) retried_at = clock.Now();
    knob.Carry(actions);
  }
  EXPECT_GE(retried_at - parked_at, config.cooldown);
  EXPECT_LT(retried_at - parked_at, config.cooldown + config.window + absl::Seconds(1));
}

// A change that passes its guard window is listed as kept with the figures it was judged on, for
// the journal: a person reading why a change stayed sees the drops and CPU against the baseline.
TEST(ControllerTest, AKeptChangeSaysWhatItWasJudgedOn) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 80};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{12, 0.30},
                             {Rec(Knob::kRxUsecs, "eth0", 80, 40, 0.5)}));
  ASSERT_EQ(knob.value, 40);
  EXPECT_THAT(controller.LastKept(), IsEmpty());
  for (absl::Duration t; t < config.guard; t += config.window) {
    clock.Advance(config.window);
    controller.Step(clock.Now(), {knob.Read()}, Health{0.5, 0.31}, {});
  }
  ASSERT_THAT(controller.LastKept(), SizeIs(1));
  EXPECT_EQ(controller.LastKept()[0].target, "eth0");
  EXPECT_EQ(controller.LastKept()[0].reason,
            "guard window passed: kept (drops 0.50/s vs baseline 12.00/s, CPU 0.310 vs 0.300)");
  clock.Advance(config.window);
  controller.Step(clock.Now(), {knob.Read()}, Health{0.5, 0.31}, {});
  EXPECT_THAT(controller.LastKept(), IsEmpty());
}

// Steps down against drops that no interval stops (a reader that pauses longer than its socket
// fills): the tuner asks for a tenth less at each window that drops, but a step that left the
// drops as they were says the knob is not their cause, and the next one that way waits a
// cooldown instead of ratcheting the interrupt rate up for nothing.
struct Ratchet {
  std::vector<int64_t> written;
  std::vector<Held> held;
  std::vector<KeptChange> kept;
};
Ratchet StepDownWhileDropping(Knob knob, const std::vector<double>& drops_per_window,
                              const ControllerConfig& config) {
  Controller controller(config);
  FakeClock clock;
  FakeKnob fake{knob, "eth0", 2500};
  Ratchet ratchet;
  for (double drops : drops_per_window) {
    const int64_t wanted = fake.value * 9 / 10;
    const std::vector<Action> actions = controller.Step(
        clock.Now(), {fake.Read()}, Health{drops, 0.1}, {Rec(knob, "eth0", fake.value, wanted, 1)});
    for (const Action& a : actions) {
      if (const auto* apply = std::get_if<Apply>(&a)) ratchet.written.push_back(apply->value);
      EXPECT_FALSE(std::holds_alternative<Rollback>(a));
    }
    for (const Held& h : controller.LastHeld()) ratchet.held.push_back(h);
    for (const KeptChange& k : controller.LastKept()) ratchet.kept.push_back(k);
    fake.Carry(actions);
    clock.Advance(config.window);
  }
  return ratchet;
}

// Windows of 2 s, each a guard window: a step is kept, or not, the window after it.
ControllerConfig OneWindowGuard() {
  ControllerConfig config;
  config.window = absl::Seconds(2);
  config.guard = absl::Seconds(2);
  return config;
}

TEST(ControllerTest, AStepAgainstDropsThatLeftThemAsTheyWereIsNotFollowedByAnotherThatWay) {
  const ControllerConfig config = OneWindowGuard();
  const Ratchet ratchet =
      StepDownWhileDropping(Knob::kRxUsecs, std::vector<double>(12, 300.0), config);
  // 2500 -> 2250, kept a window later with the drops where they were; in that window and each
  // after it, nothing more for the cooldown.
  EXPECT_EQ(ratchet.written, (std::vector<int64_t>{2250}));
  ASSERT_THAT(ratchet.kept, SizeIs(1));
  EXPECT_THAT(ratchet.kept[0].reason,
              HasSubstr("the drops beyond stalls it was taken at did not fall (300.00/s, "
                        "300.00/s over the guard window): no further step this way until"));
  ASSERT_THAT(ratchet.held, SizeIs(11));
  EXPECT_EQ(ratchet.held[0].why, HeldFor::kIneffective);
  EXPECT_EQ(ratchet.held[0].recommended, 2025);
  EXPECT_THAT(ratchet.held[0].reason,
              HasSubstr("the last step this way, 2500 -> 2250, did not lower the drops beyond "
                        "stalls (300.00/s before, 300.00/s after)"));
  EXPECT_STREQ(HeldForName(ratchet.held[0].why), "ineffective");
}

TEST(ControllerTest, StepsThatLowerTheDropsGoOnAndOneThatDoesNotStopsThem) {
  const ControllerConfig config = OneWindowGuard();
  // Each window's drops are those of the value the window before set: each step down halves
  // them, as an interval that overflows a socket does, down to 1822 us, below which they stay
  // at 40/s.
  const Ratchet ratchet =
      StepDownWhileDropping(Knob::kRxUsecs, {300, 150, 75, 40, 40, 40, 40, 40}, config);
  EXPECT_EQ(ratchet.written, (std::vector<int64_t>{2250, 2025, 1822, 1639}));
  EXPECT_EQ(ratchet.kept.size(), 4u);
  ASSERT_THAT(ratchet.held, SizeIs(4));
  EXPECT_EQ(ratchet.held.front().why, HeldFor::kIneffective);
}

// A reader's pauses counted per window vary by a pause: a guard window of three windows judges
// the step on their mean. Here the last window alone (400/s against 650/s before) would call the
// step effective; the three (700, 700, 400: 600/s) say it was not.
TEST(ControllerTest, AnIneffectiveStepIsJudgedOverTheWholeGuardWindow) {
  ControllerConfig config;
  config.window = absl::Seconds(10);
  config.guard = absl::Seconds(30);
  const Ratchet ratchet =
      StepDownWhileDropping(Knob::kRxUsecs, {650, 700, 700, 400, 650, 650}, config);
  EXPECT_EQ(ratchet.written, (std::vector<int64_t>{2250}));
  ASSERT_THAT(ratchet.kept, SizeIs(1));
  EXPECT_THAT(ratchet.kept[0].reason, HasSubstr("did not fall (650.00/s, 600.00/s over the guard"));
  ASSERT_FALSE(ratchet.held.empty());
  EXPECT_EQ(ratchet.held[0].why, HeldFor::kIneffective);
}

TEST(ControllerTest, AfterTheCooldownAnIneffectiveStepsDirectionIsTriedAgain) {
  ControllerConfig config = OneWindowGuard();
  config.cooldown = absl::Seconds(10);
  const Ratchet ratchet =
      StepDownWhileDropping(Knob::kRxFrames, std::vector<double>(10, 300.0), config);
  // A step; kept at 2 s and held then and in the four windows after, to 10 s from the keep; the
  // next step at 12 s, kept at 14 s, and held again.
  EXPECT_EQ(ratchet.written, (std::vector<int64_t>{2250, 2025}));
}

// rmem_default reaches only sockets created after it: live sockets' drops say nothing of a step,
// and growing it again is not held for them.
TEST(ControllerTest, AKnobThatReachesOnlyNewSocketsIsNotJudgedIneffective) {
  const ControllerConfig config = OneWindowGuard();
  const Ratchet ratchet =
      StepDownWhileDropping(Knob::kRmemDefault, std::vector<double>(6, 300.0), config);
  EXPECT_EQ(ratchet.written, (std::vector<int64_t>{2250, 2025, 1822, 1639, 1475, 1327}));
  EXPECT_THAT(ratchet.held, IsEmpty());
}

TEST(ControllerTest, CpuRegressionAlsoRollsBack) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 80};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.30},
                             {Rec(Knob::kRxUsecs, "eth0", 80, 40, 0.5)}));
  ASSERT_EQ(knob.value, 40);
  clock.Advance(config.window);
  // Within tolerance (0.02): kept.
  EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.315}, {}), IsEmpty());
  clock.Advance(config.window);
  const std::vector<Action> actions =
      controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.45}, {});
  ASSERT_THAT(actions, SizeIs(1));
  EXPECT_TRUE(std::holds_alternative<Rollback>(actions[0]));
}

// A NAPI poller the agent named only after the baseline (its first window, a topology read
// later, threading switched on by hand) adds its share to the guard window's CPU alone: no
// regression of the change's. Over the same pollers the same rise is one.
TEST(ControllerTest, CpuOverOtherPollersThanTheBaselinesIsNotJudged) {
  for (const uint32_t baseline_pollers : {0u, 1u}) {
    ControllerConfig config;
    Controller controller(config);
    FakeClock clock;
    FakeKnob knob{Knob::kRxUsecs, "emu0", 4000};
    knob.Carry(controller.Step(clock.Now(), {knob.Read()},
                               Health{.cpu_share = 0.01, .napi_pollers = baseline_pollers},
                               {Rec(Knob::kRxUsecs, "emu0", 4000, 2500, 0.5)}));
    ASSERT_EQ(knob.value, 2500);
    clock.Advance(config.window);
    const std::vector<Action> actions = controller.Step(
        clock.Now(), {knob.Read()}, Health{.cpu_share = 0.04, .napi_pollers = 1}, {});
    if (baseline_pollers == 0) {
      EXPECT_THAT(actions, IsEmpty());
      EXPECT_EQ(knob.value, 2500);
    } else {
      ASSERT_THAT(actions, SizeIs(1));
      EXPECT_TRUE(std::holds_alternative<Rollback>(actions[0]));
    }
  }
}

// The closed loop on a busy VM: rx-usecs 1538 -> 2899 (half the interrupts), and the tick-sampled
// receive CPU read 0.049 against 0.006 in the guard window. A longer interval cannot cost the
// receive path more; the same rise after a shorter one is a regression.
TEST(ControllerTest, ALongerIntervalIsNotRolledBackForCpu) {
  for (const int64_t wanted : {2899, 769}) {
    ControllerConfig config;
    Controller controller(config);
    FakeClock clock;
    FakeKnob knob{Knob::kRxUsecs, "emu0", 1538};
    knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.006},
                               {Rec(Knob::kRxUsecs, "emu0", 1538, wanted, 0.45)}));
    ASSERT_EQ(knob.value, wanted);
    clock.Advance(config.window);
    const std::vector<Action> actions =
        controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.049}, {});
    if (wanted > 1538) {
      EXPECT_THAT(actions, IsEmpty());
    } else {
      ASSERT_THAT(actions, SizeIs(1));
      EXPECT_TRUE(std::holds_alternative<Rollback>(actions[0]));
    }
  }
}

TEST(ControllerTest, CpuSpentToCutDropsIsKeptUpToItsAllowance) {
  // The closed loop's first step: rx-usecs halved, drops 6250/s -> 474/s, CPU 0.041 -> 0.071.
  // That is the trade the change was for; the same CPU without fewer drops is a regression.
  for (const bool drops_fell : {true, false}) {
    ControllerConfig config;
    Controller controller(config);
    FakeClock clock;
    FakeKnob knob{Knob::kRxUsecs, "emu0", 8192};
    knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{6250, 0.041},
                               {Rec(Knob::kRxUsecs, "emu0", 8192, 2843, 1.0)}));
    ASSERT_EQ(knob.value, 4096);
    clock.Advance(config.window);
    const Health after{drops_fell ? 474.0 : 6250.0, 0.071};
    const std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, after, {});
    if (drops_fell) {
      EXPECT_THAT(actions, IsEmpty());
    } else {
      ASSERT_THAT(actions, SizeIs(1));
      EXPECT_TRUE(std::holds_alternative<Rollback>(actions[0]));
    }
  }
  // Beyond the allowance (0.02 + 0.10) even fewer drops do not keep it.
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "emu0", 8192};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{6250, 0.041},
                             {Rec(Knob::kRxUsecs, "emu0", 8192, 2843, 1.0)}));
  clock.Advance(config.window);
  const std::vector<Action> actions =
      controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.20}, {});
  ASSERT_THAT(actions, SizeIs(1));
  EXPECT_TRUE(std::holds_alternative<Rollback>(actions[0]));
}

TEST(ControllerTest, NoRegressionKeepsTheChangeAfterTheGuard) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 50};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{100, 0.3},
                             {Rec(Knob::kRxUsecs, "eth0", 50, 40, 1.0)}));
  for (absl::Duration t; t <= config.guard; t += config.window) {
    clock.Advance(config.window);
    knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.3}, {}));
  }
  EXPECT_EQ(knob.value, 40);
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "eth0"), KnobMode::kIdle);
}

TEST(ControllerTest, ManualChangeStopsManagementForGood) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kNetdevBudget, "host", 300};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{},
                             {Rec(Knob::kNetdevBudget, "host", 300, 600, 0.5)}));
  ASSERT_EQ(knob.value, 600);

  // A person writes 450 (the agent learnt who from the audit log).
  clock.Advance(config.window);
  knob.value = 450;
  const absl::Time when = clock.Now() - absl::Seconds(3);
  KnobReading reading = knob.Read();
  reading.changed_by = "uid 1000 (sysctl)";
  reading.changed_at = when;
  std::vector<Action> actions = controller.Step(clock.Now(), {reading}, Health{1e6, 0.9},
                                                {Rec(Knob::kNetdevBudget, "host", 450, 900, 1)});
  ASSERT_THAT(actions, SizeIs(1));
  const Release& release = std::get<Release>(actions[0]);
  EXPECT_EQ(release.expected, 600);
  EXPECT_EQ(release.found, 450);
  EXPECT_EQ(release.owner, "uid 1000 (sysctl)");
  EXPECT_EQ(release.changed_at, when);
  EXPECT_EQ(controller.ModeOf(Knob::kNetdevBudget, "host"), KnobMode::kReleased);

  // Never again: no rollback despite the regression, no new change, for a long time.
  for (int i = 0; i < 200; ++i) {
    clock.Advance(config.window);
    EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{1e6, 0.9},
                                {Rec(Knob::kNetdevBudget, "host", 450, 900, 1)}),
                IsEmpty());
  }
  EXPECT_EQ(knob.value, 450);
}

TEST(ControllerTest, OtherKnobsStayManagedAfterARelease) {
  Controller controller(ControllerConfig{});
  FakeClock clock;
  FakeKnob budget{Knob::kNetdevBudget, "host", 300};
  FakeKnob usecs{Knob::kRxUsecs, "eth0", 20};
  std::vector<Action> actions = controller.Step(
      clock.Now(), {budget.Read(), usecs.Read()}, Health{},
      {Rec(Knob::kNetdevBudget, "host", 300, 600, 0.5), Rec(Knob::kRxUsecs, "eth0", 20, 40, 0.5)});
  ASSERT_THAT(actions, SizeIs(2));
  budget.Carry(actions);
  usecs.Carry(actions);
  budget.value = 1000;  // someone else
  clock.Advance(absl::Minutes(1));
  actions = controller.Step(
      clock.Now(), {budget.Read(), usecs.Read()}, Health{},
      {Rec(Knob::kNetdevBudget, "host", 1000, 600, 0.5), Rec(Knob::kRxUsecs, "eth0", 40, 78, 0.5)});
  ASSERT_THAT(actions, SizeIs(2));
  EXPECT_TRUE(std::holds_alternative<Release>(actions[0]));
  EXPECT_EQ(std::get<Apply>(actions[1]).value, 78);
}

TEST(ControllerTest, TheKnobsHoldingOurValueAreTheWrittenOnesNotTheReleased) {
  Controller controller(ControllerConfig{});
  FakeClock clock;
  FakeKnob budget{Knob::kNetdevBudget, "host", 300};
  FakeKnob usecs{Knob::kRxUsecs, "eth0", 20};
  EXPECT_THAT(controller.KnobsHoldingOurValue(), IsEmpty());
  std::vector<Action> actions = controller.Step(
      clock.Now(), {budget.Read(), usecs.Read()}, Health{},
      {Rec(Knob::kNetdevBudget, "host", 300, 600, 0.5), Rec(Knob::kRxUsecs, "eth0", 20, 40, 0.5)});
  budget.Carry(actions);
  usecs.Carry(actions);
  EXPECT_THAT(controller.KnobsHoldingOurValue(), SizeIs(2));

  budget.value = 1000;  // someone else: the knob is theirs, nothing of ours is owed there
  clock.Advance(absl::Minutes(1));
  controller.Step(clock.Now(), {budget.Read(), usecs.Read()}, Health{}, {});
  ASSERT_EQ(controller.ModeOf(Knob::kNetdevBudget, "host"), KnobMode::kReleased);
  const std::vector<std::pair<Knob, std::string>> held = controller.KnobsHoldingOurValue();
  ASSERT_THAT(held, SizeIs(1));
  EXPECT_EQ(held[0].first, Knob::kRxUsecs);
  EXPECT_EQ(held[0].second, "eth0");

  // Its device gone, the other is forgotten too.
  controller.DeviceGone(Knob::kRxUsecs, "eth0", clock.Now());
  EXPECT_THAT(controller.KnobsHoldingOurValue(), IsEmpty());
}

TEST(ControllerTest, AlternatingLoadGivesAtMostOneReversalPerCooldown) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "eth0", 64};
  // The load flips every guard window: the recommendation swings between 32 and 128.
  std::vector<absl::Time> reversals;
  int last_direction = 0;
  int applies = 0;
  const absl::Time start = clock.Now();
  while (clock.Now() < start + absl::Hours(2)) {
    const bool high = ((clock.Now() - start) / config.guard) % 2 == 0;
    const std::vector<Action> actions =
        controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.3},
                        {Rec(Knob::kRxUsecs, "eth0", knob.value, high ? 128 : 32, 0.5)});
    for (const Action& a : actions) {
      const Apply& apply = std::get<Apply>(a);
      ++applies;
      const int direction = apply.value > apply.from ? 1 : -1;
      if (last_direction != 0 && direction != last_direction) reversals.push_back(clock.Now());
      last_direction = direction;
    }
    knob.Carry(actions);
    clock.Advance(config.window);
  }
  EXPECT_GE(applies, 2);
  ASSERT_GE(reversals.size(), 2u);  // the controller still follows the load, slowly
  for (size_t i = 1; i < reversals.size(); ++i) {
    EXPECT_GE(reversals[i] - reversals[i - 1], config.cooldown) << "reversal " << i;
  }
  EXPECT_LE(reversals.size(), static_cast<size_t>(absl::Hours(2) / config.cooldown) + 1);
}

TEST(ControllerTest, AStepTakenAgainstDropsIsNotReversedBeforeACooldown) {
  // The closed loop on the emulated NIC: drops at 2810 us make the tuner ask for 2529; the next
  // windows at 2529 drop nothing and the fill math asks for 2813 again. Going back up waits a
  // cooldown; a further step down (the same direction) does not.
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "emu0", 2810};
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{22, 0.12},
                             {Rec(Knob::kRxUsecs, "emu0", 2810, 2529, 1.0)}));
  ASSERT_EQ(knob.value, 2529);
  const absl::Time stepped_down = clock.Now();
  for (clock.Advance(config.window); clock.Now() - stepped_down < config.cooldown;
       clock.Advance(config.window)) {
    EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.12},
                                {Rec(Knob::kRxUsecs, "emu0", 2529, 2813, 0.1)}),
                IsEmpty())
        << clock.Now() - stepped_down << " after the step down";
    // Past the guard window (kept) the reversal is what holds it, and the hold says until when.
    if (clock.Now() - stepped_down < config.guard) continue;
    ASSERT_THAT(controller.LastHeld(), SizeIs(1)) << clock.Now() - stepped_down;
    EXPECT_THAT(controller.LastHeld()[0].reason,
                HasSubstr(absl::StrCat(
                    "reverses the last change's direction, which waits until ",
                    absl::FormatTime(stepped_down + config.cooldown, absl::UTCTimeZone()))));
  }
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, Health{0, 0.12},
                             {Rec(Knob::kRxUsecs, "emu0", 2529, 2813, 0.1)}));
  EXPECT_EQ(knob.value, 2813);

  // Without drops in its baseline a step down may be reversed at once (the first reversal).
  Controller calm(config);
  FakeKnob other{Knob::kRxUsecs, "eth0", 100};
  other.Carry(calm.Step(clock.Now(), {other.Read()}, Health{0, 0.12},
                        {Rec(Knob::kRxUsecs, "eth0", 100, 80, 0.5)}));
  ASSERT_EQ(other.value, 80);
  clock.Advance(config.guard);
  other.Carry(calm.Step(clock.Now(), {other.Read()}, Health{0, 0.12},
                        {Rec(Knob::kRxUsecs, "eth0", 80, 100, 0.5)}));
  EXPECT_EQ(other.value, 100);

  // Under drops a further step down goes ahead within the cooldown.
  Controller dropping(config);
  FakeKnob third{Knob::kRxUsecs, "eth1", 2810};
  third.Carry(dropping.Step(clock.Now(), {third.Read()}, Health{22, 0.12},
                            {Rec(Knob::kRxUsecs, "eth1", 2810, 2529, 1.0)}));
  clock.Advance(config.guard);
  third.Carry(dropping.Step(clock.Now(), {third.Read()}, Health{9, 0.12},
                            {Rec(Knob::kRxUsecs, "eth1", 2529, 2276, 1.0)}));
  EXPECT_EQ(third.value, 2276);
}

TEST(ControllerTest, FailedWriteIsForgottenAndParked) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "veth0", 0};
  std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, Health{},
                                                {Rec(Knob::kRxUsecs, "veth0", 0, 50, 0.5)});
  ASSERT_THAT(actions, SizeIs(1));
  EXPECT_EQ(std::get<Apply>(actions[0]).value, 2);               // from 0 the first step is to 2
  controller.WriteFailed(Knob::kRxUsecs, "veth0", clock.Now());  // EOPNOTSUPP
  clock.Advance(config.window);
  // The value did not change, and that is not a person's doing: no release, just parked.
  EXPECT_THAT(controller.Step(clock.Now(), {knob.Read()}, Health{},
                              {Rec(Knob::kRxUsecs, "veth0", 0, 50, 0.5)}),
              IsEmpty());
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "veth0"), KnobMode::kParked);
}

TEST(ControllerTest, AWriteNotMadeIsAskedForAgainNextWindowNeitherParkedNorReleased) {
  ControllerConfig config;
  Controller controller(config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "veth0", 8};
  std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, Health{},
                                                {Rec(Knob::kRxUsecs, "veth0", 8, 16, 0.5)});
  ASSERT_THAT(actions, SizeIs(1));
  // The journal could not record the original (a full disk): the kernel was never touched.
  controller.WriteNotMade(Knob::kRxUsecs, "veth0");
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "veth0"), KnobMode::kIdle);
  clock.Advance(config.window);
  actions = controller.Step(clock.Now(), {knob.Read()}, Health{},
                            {Rec(Knob::kRxUsecs, "veth0", 8, 16, 0.5)});
  ASSERT_THAT(actions, SizeIs(1)) << "asked again, not parked and not taken for a person's change";
  ASSERT_TRUE(std::holds_alternative<Apply>(actions[0]));
  EXPECT_EQ(std::get<Apply>(actions[0]).value, 16);
  knob.Carry(actions);
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "veth0"), KnobMode::kGuarding);
  // Only the last Step's Apply can be taken back: a later call changes nothing.
  clock.Advance(config.window);
  controller.Step(clock.Now(), {knob.Read()}, Health{},
                  {Rec(Knob::kRxUsecs, "veth0", 16, 16, 0.5)});
  controller.WriteNotMade(Knob::kRxUsecs, "veth0");
  EXPECT_EQ(controller.ModeOf(Knob::kRxUsecs, "veth0"), KnobMode::kGuarding);
}

// A closed-loop run on the emulated NIC, as it failed: 10,000 pps into a socket of about 31
// datagrams, rx-usecs 4096 dropping 43.48/s, the fill math asking for 2805 us. The guard window
// after the change held 13 NIC stalls, the longest 16.8 ms (168 packets at this rate, over five
// times the socket): 215.62 drops/s. The run did not record the stalls' summed lateness; 45 ms
// (450 packets in the 2 s window, 225/s) is taken here, the longest plus twelve of 2.35 ms.
struct StalledGuardTrace {
  ControllerConfig config;
  Health baseline{43.48, 0.05};
  Health stalled_guard_window{215.62, 0.05, /*stall_drops_per_s=*/215.62};
};

StalledGuardTrace RecordedTrace() {
  StalledGuardTrace trace;
  trace.config.window = absl::Seconds(2);
  trace.config.guard = absl::Seconds(2);
  trace.config.cooldown = absl::Seconds(6);
  return trace;
}

// Steps once from 4096 towards 2805 and once more in the guard window with `guard_health`;
// returns the second step's actions.
std::vector<Action> ChangeThenGuard(Controller& controller, FakeClock& clock, FakeKnob& knob,
                                    const StalledGuardTrace& trace, const Health& guard_health) {
  knob.Carry(controller.Step(clock.Now(), {knob.Read()}, trace.baseline,
                             {Rec(Knob::kRxUsecs, "emu0", 4096, 2805, 0.3)}));
  EXPECT_EQ(knob.value, 2805);
  clock.Advance(trace.config.window);
  std::vector<Action> actions = controller.Step(clock.Now(), {knob.Read()}, guard_health,
                                                {Rec(Knob::kRxUsecs, "emu0", 2805, 2805, 0)});
  knob.Carry(actions);
  return actions;
}

TEST(ControllerTest, DropsAStallExplainsDoNotRollAChangeBack) {
  const StalledGuardTrace trace = RecordedTrace();
  Controller controller(trace.config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "emu0", 4096};
  EXPECT_THAT(ChangeThenGuard(controller, clock, knob, trace, trace.stalled_guard_window),
              IsEmpty());
  EXPECT_EQ(knob.value, 2805);
  // Without the stalls' share the same window rolls the change back, as it did in that run.
  Controller blind(trace.config);
  FakeKnob other{Knob::kRxUsecs, "emu0", 4096};
  Health unexplained = trace.stalled_guard_window;
  unexplained.stall_drops_per_s = 0;
  const std::vector<Action> actions = ChangeThenGuard(blind, clock, other, trace, unexplained);
  ASSERT_THAT(actions, SizeIs(1));
  EXPECT_TRUE(std::holds_alternative<Rollback>(actions[0]));
}

TEST(ControllerTest, DropsBeyondWhatTheStallsExplainStillRollBack) {
  const StalledGuardTrace trace = RecordedTrace();
  Controller controller(trace.config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "emu0", 4096};
  // The longest stall alone: 168 packets in 2 s. 131.62/s are left, above 43.48 * 1.1 + 1.
  Health guard = trace.stalled_guard_window;
  guard.stall_drops_per_s = 84;
  const std::vector<Action> actions = ChangeThenGuard(controller, clock, knob, trace, guard);
  ASSERT_THAT(actions, SizeIs(1));
  const auto* rollback = std::get_if<Rollback>(&actions[0]);
  ASSERT_NE(rollback, nullptr);
  EXPECT_EQ(rollback->value, 4096);
  EXPECT_THAT(rollback->reason,
              HasSubstr("drops 215.62/s vs baseline 43.48/s, of which stalls explain 84.00/s and "
                        "0.00/s"));
}

// A rollback to a value that drops beyond its stalls is parked a guard window, doubling with
// each rollback in a row up to the cooldown; one that did not drop is parked the cooldown.
TEST(ControllerTest, ARollbackToADroppingValueIsRetriedSoonerBackingOff) {
  const StalledGuardTrace trace = RecordedTrace();
  Controller controller(trace.config);
  FakeClock clock;
  FakeKnob knob{Knob::kRxUsecs, "emu0", 4096};
  Health worse = trace.stalled_guard_window;
  worse.stall_drops_per_s = 0;
  std::vector<absl::Duration> parks;
  for (int rollback = 0; rollback < 4; ++rollback) {
    ASSERT_THAT(ChangeThenGuard(controller, clock, knob, trace, worse), SizeIs(1));
    ASSERT_EQ(knob.value, 4096);
    const absl::Time rolled_back_at = clock.Now();
    while (controller.ModeOf(Knob::kRxUsecs, "emu0") == KnobMode::kParked) {
      ASSERT_LT(clock.Now() - rolled_back_at, 10 * trace.config.cooldown);
      clock.Advance(trace.config.window);
      knob.Carry(controller.Step(clock.Now(), {knob.Read()}, trace.baseline, {}));
    }
    parks.push_back(clock.Now() - rolled_back_at);
  }
  EXPECT_EQ(parks, (std::vector<absl::Duration>{absl::Seconds(2), absl::Seconds(4),
                                                absl::Seconds(6), absl::Seconds(6)}));

  // From a value without drops, a rollback parks for the cooldown.
  Controller calm(trace.config);
  FakeKnob quiet{Knob::kRxUsecs, "emu0", 4096};
  StalledGuardTrace drop_free = trace;
  drop_free.baseline = Health{0, 0.05};
  ASSERT_THAT(ChangeThenGuard(calm, clock, quiet, drop_free, worse), SizeIs(1));
  const absl::Time rolled_back_at = clock.Now();
  while (calm.ModeOf(Knob::kRxUsecs, "emu0") == KnobMode::kParked) {
    ASSERT_LT(clock.Now() - rolled_back_at, 10 * trace.config.cooldown);
    clock.Advance(trace.config.window);
    quiet.Carry(calm.Step(clock.Now(), {quiet.Read()}, drop_free.baseline, {}));
  }
  EXPECT_EQ(clock.Now() - rolled_back_at, trace.config.cooldown);
}

}  // namespace
}  // namespace nictune::tuner
