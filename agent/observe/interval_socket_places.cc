// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/interval_socket_places.h"

namespace nictune::observe {

SocketPlacement IntervalSocketPlaces::Place(const model::Window& interval) {
  // No host knobs and no port map: the report takes the sockets' devices and drops alone.
  SocketPlacement placement = PlaceSockets(interval, tuner::HostKnobs{}, {}, last_);
  last_ = PlacesOf(placement);
  return placement;
}

}  // namespace nictune::observe
