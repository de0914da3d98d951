// SPDX-License-Identifier: Apache-2.0
// Each sampling interval's sockets on the devices they receive on, for the interval's report
// (`nictune top`). The drop probe's slots can miss every drop of an interval: its records then
// name no device, while the socket census counted each socket's drops. A socket placed in the
// interval before keeps its device (by cookie, or by address when it was reopened), so that the
// kernel's count of its drops still lands on the device. Kept in every mode and per interval:
// the tuner's memory (remembered_sockets.h) is kept per tuner window, and only while it runs.
#pragma once

#include "agent/model/window.h"
#include "agent/observe/socket_placement.h"

namespace nictune::observe {

class IntervalSocketPlaces {
 public:
  // The devices of the interval's sockets (by its drop records, then by the places of the
  // interval before), remembered: only those, so that a closed socket is let go an interval later.
  // Devices alone: the interval's report, which few intervals are asked for, takes the rest.
  SocketDevices Place(const model::Window& interval);

 private:
  RememberedPlaces last_;
};

}  // namespace nictune::observe
