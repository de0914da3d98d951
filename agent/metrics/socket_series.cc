// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/socket_series.h"

#include <string>

#include "agent/metrics/families.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/label_values.h"

namespace nictune::metrics {

SocketSeries::SocketSeries(prometheus::Registry& r, size_t max_sockets)
    : max_sockets_(max_sockets),
      drops_(CounterFamily(r, metrics::family::kSocketDropsTotal)),
      queued_(GaugeFamily(r, metrics::family::kSocketReceiveQueueBytes)) {}

void SocketSeries::Update(const model::Snapshot& snapshot) {
  if (snapshot.udp_sockets) {
    size_t published = 0;
    // The census lists the most dropping and fullest first.
    for (const driver::SocketMemory& s : snapshot.udp_sockets->sockets) {
      if (published++ == max_sockets_) break;
      const prometheus::Labels labels{{"socket", std::to_string(s.cookie)},
                                      {"proto", ProtocolName(0, s.protocol)},
                                      {"port", std::to_string(s.local_port)},
                                      {"netns", std::to_string(s.netns_inode)}};
      drops_.Set(labels, static_cast<double>(s.drops));
      queued_.Set(labels, static_cast<double>(s.rmem_alloc));
    }
  }
  drops_.Sweep();
  queued_.Sweep();
}

}  // namespace nictune::metrics
