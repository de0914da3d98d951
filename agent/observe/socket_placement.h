// The sockets the BPF socket-fill table saw, as the tuner's SocketObservations, each with the
// device it receives on.
//
// The table keys a socket by cookie and port; it does not know the device or the CPU whose
// softirq queued its packets. The device comes from the drop records (skb:kfree_skb carries
// skb->dev): records with the socket's cookie first, else records for its protocol and local
// port; where they name several devices, the one with the most drops. Else the configured
// port -> device map. A socket with neither is unplaced: guessing would let it steer the
// coalescing of a NIC it never received on.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/model/window.h"
#include "tuner/observation.h"

namespace nictune::observe {

struct PlacedSocket {
  std::string device;
  tuner::SocketObservation socket;
};

struct SocketPlacement {
  std::vector<PlacedSocket> placed;
  std::vector<std::string> unplaced;  // names of the sockets no device could be found for
};

// Truesize: the socket's own mean when the fill probe sampled it, else the mean of its device's
// truesize histogram; p99 from that histogram (the upper bound of its log2 bucket) when present.
// rcvbuf_locked is inferred for UDP only: a UDP socket starts with rmem_default, so a different
// sk_rcvbuf means rmem_default does not apply to it (SO_RCVBUF, or created before a change).
SocketPlacement PlaceSockets(const model::Window& window, const tuner::HostKnobs& host,
                             const std::map<uint16_t, std::string>& port_devices);

}  // namespace nictune::observe
