// SPDX-License-Identifier: Apache-2.0
// Knob values another hand changed: a person with ethtool or sysctl, tuned, bpftune (whose
// net_buffer tuner writes netdev_budget and netdev_budget_usecs). Each tuner window's readings
// are its recommendations' current values; the actuator, the agent's only writer, tells it of each
// write that lands (apply, rollback, restore, the start's resolution), so that a value the agent
// put there is not taken for another's. In recommend mode, which writes nothing, every change
// between two windows is another's.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/actuate/write_observer.h"
#include "tuner/knob.h"
#include "tuner/recommendation.h"

namespace nictune::service {

struct KnobChange {
  tuner::Knob knob = tuner::Knob::kRxUsecs;
  std::string target;
  int64_t from = 0;
  int64_t to = 0;
  absl::Time seen;  // the end of the window that first read `to`
};

class KnobChangeWatch : public actuate::WriteObserver {
 public:
  // The latest changes kept for status; older ones are counted, not listed.
  static constexpr size_t kKeptChanges = 10;

  // actuate::WriteObserver: a reading of `holds` before the next window's is the agent's doing.
  void Wrote(const driver::knobs::KnobAddress& address, int64_t holds) override;

  // One window's readings. Socket-scoped advice has no reading, and is left out.
  void Observe(const std::vector<tuner::Recommendation>& readings, absl::Time now);

  std::vector<KnobChange> Changes() const;  // oldest first
  uint64_t total() const;                   // every change seen since start

 private:
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, int64_t> last_ ABSL_GUARDED_BY(mutex_);
  // Values the agent wrote that no reading has shown yet, by knob and target.
  absl::flat_hash_map<std::string, std::vector<int64_t>> own_ ABSL_GUARDED_BY(mutex_);
  std::deque<KnobChange> changes_ ABSL_GUARDED_BY(mutex_);
  uint64_t total_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace nictune::service
