// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/emulated_nic_series.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::metrics {

EmulatedNicSeries::EmulatedNicSeries(prometheus::Registry& r)
    : interrupts_(
          CounterFamily(r, metrics::family::kEmulatedNicInterruptsTotal,
                        "Interrupts an emulated NIC raised since its traffic started "
                        "(emulated NIC counters over its control socket, driver/emulated): "
                        "one burst into its TAP each; a TAP has no /proc/interrupts line.")),
      delivered_(CounterFamily(r, metrics::family::kEmulatedNicDeliveredPacketsTotal,
                               "Frames an emulated NIC's TAP accepted since its traffic started "
                               "(emulated NIC counters over its control socket).")),
      missed_(CounterFamily(r, metrics::family::kEmulatedNicMissedPacketsTotal,
                            "Frames an emulated NIC dropped because its rx ring was full "
                            "(emulated NIC counters over its control socket; rx_missed_errors on "
                            "a real NIC).")) {}

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
