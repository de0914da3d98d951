// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/interval_socket_places.h"

namespace nictune::observe {

SocketDevices IntervalSocketPlaces::Place(const model::Window& interval) {
  SocketDevices devices = DevicesOfSockets(interval, /*port_devices=*/{}, last_);
  last_ = PlacesOf(interval, devices);
  return devices;
}

}  // namespace nictune::observe
