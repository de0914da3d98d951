// SPDX-License-Identifier: Apache-2.0
#include "agent/service/real_ports.h"

#include "absl/strings/str_cat.h"
#include "agent/log.h"
#include "agent/observe/defer_reader.h"
#include "agent/observe/host_knobs_reader.h"
#include "agent/observe/isolated_cpus.h"
#include "agent/observe/observation_builder.h"
#include "agent/observe/threaded_reader.h"
#include "agent/window_report.h"

namespace nictune::service {

absl::StatusOr<tuner::Observation> HostObservations::Observe(const model::Window& window,
                                                             uint32_t samples) {
  absl::StatusOr<observe::HostKnobsReading> host = observe::ReadHostKnobs(paths_.proc);
  if (!host.ok()) return host.status();
  const std::vector<std::string> devices = agent::DeviceNames(window);
  observe::DeferReading defer = observe::ReadDeferStates(paths_.sys, devices);
  for (const std::string& error : defer.errors) {
    problems_.Log(agent::LogLevel::kWarning, error, absl::StrCat("deferral settings: ", error),
                  absl::Now());
  }
  observe::ThreadedReading threaded = observe::ReadNapiThreadedModes(paths_.sys, devices);
  for (const std::string& error : threaded.errors) {
    problems_.Log(agent::LogLevel::kWarning, error, absl::StrCat("threaded NAPI mode: ", error),
                  absl::Now());
  }
  observe::ObservationOptions options;
  options.defer = std::move(defer.states);
  options.napi_threaded = std::move(threaded.modes);
  if (absl::StatusOr<std::vector<int>> isolated = observe::ReadIsolatedCpus(paths_.sys);
      isolated.ok()) {
    options.isolated_cpus = *std::move(isolated);
  } else {
    const std::string error(isolated.status().message());
    problems_.Log(agent::LogLevel::kWarning, error, error, absl::Now());
  }
  options.remembered_sockets = remembered_sockets_;
  observe::SocketPlacement placement;
  tuner::Observation observation =
      observe::BuildObservation(window, topology_.Read(devices), host->knobs, options, &placement);
  observation.samples = samples;
  remembered_sockets_ = observe::RememberSockets(remembered_sockets_, placement, window);
  return observation;
}

}  // namespace nictune::service
