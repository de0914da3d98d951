// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/emulated_nic_series.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::metrics {

EmulatedNicSeries::EmulatedNicSeries(prometheus::Registry& r)
    : interrupts_(
          CounterFamily(r, metrics::family::kEmulatedNicInterruptsTotal)),
      delivered_(CounterFamily(r, metrics::family::kEmulatedNicDeliveredPacketsTotal)),
      missed_(CounterFamily(r, metrics::family::kEmulatedNicMissedPacketsTotal)) {}

void EmulatedNicSeries::Update(const model::Snapshot& snapshot) {
  for (const model::EmulatedNicReading& nic : snapshot.emulated_nics) {
    const prometheus::Labels labels{{"device", nic.device}};
    interrupts_.Set(labels, static_cast<double>(nic.counters.interrupts));
    delivered_.Set(labels, static_cast<double>(nic.counters.delivered));
    missed_.Set(labels, static_cast<double>(nic.counters.missed));
  }
  interrupts_.Sweep();
  delivered_.Sweep();
  missed_.Sweep();
}

}  // namespace nictune::metrics
