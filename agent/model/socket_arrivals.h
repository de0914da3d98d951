// SPDX-License-Identifier: Apache-2.0
// What arrived for a socket over a window: the packets it queued and those its full buffer
// refused. Counting only the queued ones would read an overflowing socket's rate as its reader's
// drain rate. One definition for the tuner's observation (agent/observe/socket_placement.h) and
// for a tuner window's busiest interval (agent/service/window_aggregator.h).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "agent/model/window.h"

namespace nictune::model {

// The window's SOCKET_RCVBUFF drops (skb:kfree_skb) by socket cookie, whatever the device.
using RcvbuffDropsByCookie = std::unordered_map<uint64_t, uint64_t>;
RcvbuffDropsByCookie IndexRcvbuffDrops(const std::vector<DropWindow>& drops);

// The kernel's own count of the socket's drops (sock_diag) where it has one. Else two probes see
// a full receive buffer: kfree_skb with SOCKET_RCVBUFF and the socket's own rcvqueue_full /
// udp_fail_queue_rcv_skb events. They count the same drops, so the larger wins.
uint64_t SocketDrops(const SocketWindow& socket, const RcvbuffDropsByCookie& rcvbuff);

// Queued plus dropped packets per second over a window of `seconds`; nullopt when no probe
// counted the socket's enqueues in it (coverage 0: only its drops are known, a floor).
std::optional<double> SocketArrivalsPerS(const SocketWindow& socket,
                                         const RcvbuffDropsByCookie& rcvbuff, double seconds);

}  // namespace nictune::model
