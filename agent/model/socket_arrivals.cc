// SPDX-License-Identifier: Apache-2.0
#include "agent/model/socket_arrivals.h"

#include <algorithm>

namespace nictune::model {

RcvbuffDropsByCookie IndexRcvbuffDrops(const std::vector<DropWindow>& drops) {
  RcvbuffDropsByCookie index;
  for (const DropWindow& d : drops) {
    if (d.reason_name == kSocketRcvbuffReason) index[d.socket_cookie] += d.count;
  }
  return index;
}

uint64_t SocketDrops(const SocketWindow& socket, const RcvbuffDropsByCookie& rcvbuff) {
  if (socket.kernel_drops) return *socket.kernel_drops;
  const auto by_reason = rcvbuff.find(socket.key.cookie);
  return std::max(by_reason == rcvbuff.end() ? uint64_t{0} : by_reason->second,
                  socket.rcvqueue_full + socket.udp_queue_failures);
}

std::optional<double> SocketArrivalsPerS(const SocketWindow& socket,
                                         const RcvbuffDropsByCookie& rcvbuff, double seconds) {
  if (socket.coverage.share <= 0 || seconds <= 0) return std::nullopt;
  return socket.enqueues_per_s + static_cast<double>(SocketDrops(socket, rcvbuff)) / seconds;
}

}  // namespace nictune::model
