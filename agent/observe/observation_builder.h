// SPDX-License-Identifier: Apache-2.0
// The adapter from the agent's measurements (one Window, the Topology) to the tuner's input.
//
// Socket attribution rule: the BPF socket-fill table knows a socket's cookie and port but not
// the device or CPU that received its packets. A socket is placed on every rx queue of the
// device its drops name (drop records with the socket's cookie, else its UDP/TCP local port
// with a device), else on the device options.socket_devices gives for its port; a socket with
// neither stays out of the Observation (a guess would make the tuner tune an unrelated NIC).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/model/window.h"
#include "agent/observe/remembered_sockets.h"
#include "agent/observe/socket_placement.h"
#include "agent/topology.h"
#include "tuner/observation.h"

namespace nictune::observe {

struct ObservationOptions {
  // napi_defer_hard_irqs / gro_flush_timeout per device (defer_reader.h); a device not listed
  // has DeferState{} (unsupported).
  std::map<std::string, tuner::DeferState> defer;
  // sysfs threaded per device (threaded_reader.h); a device not listed, or without NAPI instances
  // (no mapped queue and no poll seen), has napi_threaded -1.
  std::map<std::string, uint32_t> napi_threaded;
  // CPUs isolated from the scheduler (isolated_cpus.h): their idle time is not the host's to
  // offer a device's NAPI threads.
  std::vector<int> isolated_cpus;
  // Where the sockets listening on a port receive when no drop record tells: port -> device.
  std::map<uint16_t, std::string> socket_devices;
  // The sockets earlier windows placed, by cookie: each keeps its device, and one this window
  // could have missed is carried into it (remembered_sockets.h).
  RememberedSockets remembered_sockets;
  SocketCarryOptions socket_carry;
  // Sockets kept per queue, the worst first (most drops, then highest fill, then most packets).
  size_t max_sockets_per_queue = 8;
  // Devices to observe; empty = every device with mapped rx queues or rx traffic, but lo, and
  // every device a socket was placed on (also one of another namespace).
  std::vector<std::string> devices;
  // Sampling intervals that went into the window (the tuner's confidence): 1 for a Window
  // computed from two consecutive snapshots.
  uint32_t samples = 1;
};

// One window's measurements as the tuner's Observation. Host knobs come in already read. When
// `placement` is given it receives where this window's sockets were placed.
tuner::Observation BuildObservation(const model::Window& window, const agent::Topology& topology,
                                    const tuner::HostKnobs& host, const ObservationOptions& options,
                                    SocketPlacement* placement = nullptr);

}  // namespace nictune::observe
