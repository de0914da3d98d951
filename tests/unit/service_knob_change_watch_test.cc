// SPDX-License-Identifier: Apache-2.0
// Knob values another hand changed between tuner windows: a change is another's unless the agent
// wrote that value and no reading has shown it yet; the latest few are kept, all are counted.
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/service/knob_change_watch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::service {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

tuner::Recommendation Reading(tuner::Knob knob, const std::string& target, int64_t current) {
  tuner::Recommendation r;
  r.knob = knob;
  r.target = target;
  r.current = current;
  r.scope = target == "host" ? tuner::Scope::kHost : tuner::Scope::kDevice;
  return r;
}

TEST(KnobChangeWatchTest, AChangeBetweenWindowsIsAnothersUnlessTheAgentWroteIt) {
  KnobChangeWatch watch;
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 8000),
                 Reading(tuner::Knob::kNetdevBudget, "host", 300)},
                kT0);
  EXPECT_TRUE(watch.Changes().empty()) << "a first reading is no change";

  // The agent writes rx_usecs 4000; someone else (bpftune) writes netdev_budget 600.
  watch.Wrote({tuner::Knob::kRxUsecs, "eth0"}, 4000);
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 4000),
                 Reading(tuner::Knob::kNetdevBudget, "host", 600)},
                kT0 + absl::Seconds(10));
  ASSERT_EQ(watch.Changes().size(), 1u);
  const KnobChange change = watch.Changes()[0];
  EXPECT_EQ(change.knob, tuner::Knob::kNetdevBudget);
  EXPECT_EQ(change.target, "host");
  EXPECT_EQ(change.from, 300);
  EXPECT_EQ(change.to, 600);
  EXPECT_EQ(change.seen, kT0 + absl::Seconds(10));

  // The agent's write counts until a reading shows it: the same value set again later by hand is
  // another's.
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 8000)}, kT0 + absl::Seconds(20));
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 4000)}, kT0 + absl::Seconds(30));
  EXPECT_EQ(watch.total(), 3u);
}

// A write that lands after a window's readings were taken (an apply over HTTP between the
// snapshot and the window's end) is still the agent's when the next window reads it.
TEST(KnobChangeWatchTest, AWriteAfterAWindowsReadingsIsStillTheAgentsAtTheNext) {
  KnobChangeWatch watch;
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 8000)}, kT0);
  watch.Wrote({tuner::Knob::kRxUsecs, "eth0"}, 4000);
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 8000)}, kT0 + absl::Seconds(10));
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 4000)}, kT0 + absl::Seconds(20));
  EXPECT_EQ(watch.total(), 0u);
  // Shown once, the write is spent: the same value again after another hand's is another's.
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 6000)}, kT0 + absl::Seconds(30));
  watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 4000)}, kT0 + absl::Seconds(40));
  EXPECT_EQ(watch.total(), 2u);
}

TEST(KnobChangeWatchTest, SocketAdviceHasNoReadingAndTheLatestFewAreKept) {
  KnobChangeWatch watch;
  tuner::Recommendation advice = Reading(tuner::Knob::kSoRcvbuf, "udp 0.0.0.0:9000", 212992);
  advice.scope = tuner::Scope::kSocket;
  for (int64_t i = 0; i < 25; ++i) {
    advice.current = 212992 + i;
    watch.Observe({Reading(tuner::Knob::kRxUsecs, "eth0", 100 + i), advice},
                  kT0 + absl::Seconds(i));
  }
  EXPECT_EQ(watch.total(), 24u);
  ASSERT_EQ(watch.Changes().size(), KnobChangeWatch::kKeptChanges);
  EXPECT_EQ(watch.Changes().back().to, 124);
  EXPECT_EQ(watch.Changes().front().to,
            124 - static_cast<int64_t>(KnobChangeWatch::kKeptChanges) + 1);
}

}  // namespace
}  // namespace nictune::service
