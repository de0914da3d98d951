// SPDX-License-Identifier: Apache-2.0
// The sockets the BPF socket-fill table saw, as the tuner's SocketObservations, each with the
// device it receives on.
//
// The table keys a socket by cookie and port; it does not know the device or the CPU whose
// softirq queued its packets. The device comes from the drop records (skb:kfree_skb carries
// skb->dev): records with the socket's cookie first, else records for its protocol and local
// port; where they name several devices, the one with the most drops. Else the configured
// port -> device map. A socket with neither is unplaced: guessing would let it steer the
// coalescing of a NIC it never received on. A socket placed by drops in an earlier window keeps
// that device while it has no drops (the caller remembers it by cookie): once tuning stopped its
// drops, losing sight of it would let the tuner relax the very setting that stopped them. A new
// socket bound where a remembered one was (its namespace, protocol and port: an application that
// reopened its socket) takes that socket's device: the drop probe's slots can miss all of a
// window's drops, and a replaced socket left unplaced vanished from the device's drops and
// sockets, so that the guard kept a change the new socket overflowed under.
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
  driver::SocketKey key;
  tuner::SocketObservation socket;
  // Not listed by this window, whose probe could have missed it: as an earlier window saw it
  // (remembered_sockets.h).
  bool carried = false;
};

struct SocketPlacement {
  std::vector<PlacedSocket> placed;
  std::vector<std::string> unplaced;  // names of the sockets no device could be found for
};

// Truesize: the socket's own mean when the fill probe sampled it, else the mean of its device's
// truesize histogram; p99 from that histogram (the upper bound of its log2 bucket) when present.
// rcvbuf_locked is inferred for UDP only: a UDP socket starts with rmem_default, so a different
// sk_rcvbuf means rmem_default does not apply to it (SO_RCVBUF, or created before a change).
// Where a socket binds: a socket reopened in another's place has a new cookie and this address.
struct SocketAddress {
  uint32_t netns_inode = 0;
  uint8_t protocol = 0;
  uint16_t local_port = 0;
  auto operator<=>(const SocketAddress&) const = default;
};

SocketAddress AddressOf(const driver::SocketKey& key);

// The devices earlier windows placed sockets on: by cookie, and by address (the most recently
// seen socket of each).
struct RememberedPlaces {
  std::map<uint64_t, std::string> by_cookie;
  std::map<SocketAddress, std::string> by_address;
};

// The device of each of the window's sockets that one was found for, by cookie: the rules above,
// `remembered` ranking after this window's drop records (its cookie first, then its address) and
// before `port_devices`.
using SocketDevices = std::map<uint64_t, std::string>;
SocketDevices DevicesOfSockets(const model::Window& window,
                               const std::map<uint16_t, std::string>& port_devices,
                               const RememberedPlaces& remembered);

// Each socket as the tuner observes it, on its device (DevicesOfSockets).
SocketPlacement PlaceSockets(const model::Window& window, const tuner::HostKnobs& host,
                             const std::map<uint16_t, std::string>& port_devices,
                             const RememberedPlaces& remembered);

// Where the window's sockets were found to receive, for the next window to place them (and a
// socket reopened at one's address) by.
RememberedPlaces PlacesOf(const model::Window& window, const SocketDevices& devices);

// The drops of the sockets placed on each device, by device (the kernel's own count where it
// listed a socket): a floor for the device's socket drops, whatever the drop probe's slots saw.
std::map<std::string, uint64_t> PlacedDropsByDevice(const SocketPlacement& placement);

}  // namespace nictune::observe
