// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/map_pressure_series.h"

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"

namespace nictune::metrics {

MapPressureSeries::MapPressureSeries(prometheus::Registry& r)
    : entries_(GaugeFamily(r, metrics::family::kBpfMapEntries)),
      capacity_(GaugeFamily(r, metrics::family::kBpfMapCapacityEntries)),
      no_room_(CounterFamily(r, metrics::family::kBpfMapNoRoomTotal)),
      pruned_(CounterFamily(r, metrics::family::kBpfMapPrunedKeysTotal)) {}

void MapPressureSeries::Update(const model::Snapshot& snapshot) {
  if (snapshot.bpf) {
    for (const driver::MapPressure& map : snapshot.bpf->maps) {
      const prometheus::Labels labels{{"map", map.map}};
      entries_.Set(labels, static_cast<double>(map.entries));
      capacity_.Set(labels, static_cast<double>(map.capacity));
      no_room_.Set(labels, static_cast<double>(map.no_room));
      pruned_.Set(labels, static_cast<double>(map.pruned));
    }
  }
  entries_.Sweep();
  capacity_.Sweep();
  no_room_.Sweep();
  pruned_.Sweep();
}

}  // namespace nictune::metrics
