// SPDX-License-Identifier: Apache-2.0
// The sockets earlier windows placed, carried through the windows that could not see them.
//
// The socket-fill probe counts a socket's packets only while the probe budget has its hook
// attached: in slots, or not at all while the per-packet probes are off. A window whose slots
// missed a busy socket lists nothing of it, and a tuner that lost sight of the socket its last
// change kept from overflowing lengthened the interval again: on the emulated NIC at 10000 pps,
// the recommendation moved between the socket's 3400 us and the ring's 8192 us from one 2 s
// window to the next, and in apply mode every such write overflowed the socket and was rolled
// back.
//
// A remembered socket such a window left out is carried into it: its buffer, charge per packet
// and reader as last seen, its arrivals not counted (the plan then takes the queue's rate, the
// most that can have arrived), nothing of this window's drops or fill. It is let go once a window
// watched a quarter of its length or more, long enough to see some of its packets at its last
// counted rate, and saw none (it went idle or closed), or once
// it was last seen longer ago than the carry limit: a socket closed while nothing watched holds
// the interval short no longer than that.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/model/window.h"
#include "agent/observe/socket_placement.h"

namespace nictune::observe {

struct RememberedSocket {
  PlacedSocket placed;        // as the last window that listed it saw it
  double arrivals_per_s = 0;  // its packets per second when last counted; 0 = never counted
  absl::Time seen_at;         // the end of the last window that listed it
};

using RememberedSockets = std::map<uint64_t, RememberedSocket>;  // by socket cookie

struct SocketCarryOptions {
  absl::Duration limit = absl::Minutes(5);
  // A window whose socket-fill hook watched `judging_watch` of it or more, long enough to see
  // `packets_to_judge` of a socket's packets at its last counted rate, and listed none, lets it
  // go. Packets come a delivery at a time, tens of them to a socket every few milliseconds: slots
  // of a millisecond or less (on a 2-CPU VM at 10000 pps) fall between deliveries, and a rate alone
  // would let a busy socket go.
  double judging_watch = 0.25;
  double packets_to_judge = 3;
};

// Seconds of the window the socket-fill hook was attached: 0 without the BPF probes.
double SocketHookWatchedSeconds(const model::Window& window);

// Where each remembered socket was placed, for PlaceSockets.
RememberedPlaces RememberedDevices(const RememberedSockets& remembered);

// The remembered sockets `placement` lacks that `window` could have missed: its socket-fill hook
// watched too little of it to see packets of theirs. Each as last seen with packets 0, arrivals
// not measured, no drops, no fill and no open wait, and seconds_unseen set; marked carried.
std::vector<PlacedSocket> CarriedSockets(const RememberedSockets& remembered,
                                         const SocketPlacement& placement,
                                         const model::Window& window,
                                         const SocketCarryOptions& options);

// The memory after `window`: every socket of `placement` (the carried ones among them keep their
// record; the others are renewed, their rate where the window counted it, else the one
// remembered).
RememberedSockets RememberSockets(const RememberedSockets& remembered,
                                  const SocketPlacement& placement, const model::Window& window);

}  // namespace nictune::observe
