// SPDX-License-Identifier: Apache-2.0
// The plain data the service publishes for its readers (the REST routes, sd_notify's STATUS=):
// how sampling goes, which sources and probes are in use, how the store is doing, and the latest
// recommendations with the window they came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/model/source.h"
#include "agent/observe/other_tuners.h"
#include "agent/service/emulated_nic_spec.h"
#include "agent/service/knob_change_watch.h"
#include "agent/service/mode.h"
#include "driver/probe_source.h"
#include "tuner/controller_action.h"
#include "tuner/recommendation.h"

namespace nictune::service {

// Fixed at start (or at a reload, for mode/interval/window).
struct ServiceConfig {
  std::string version;
  Mode mode = Mode::kRecommend;
  OnExit on_exit = OnExit::kRestore;
  absl::Duration interval = absl::Seconds(1);
  absl::Duration window = absl::Seconds(10);
  absl::Time started;
  std::string listen;       // "" when TCP is disabled
  std::string socket_path;  // the CLI's unix socket, "" when disabled
  // --emulated_nic: devices whose moderation is set over a control socket, not with ethtool.
  std::vector<EmulatedNicSpec> emulated_nics;
};

struct BpfHealth {
  bool in_use = false;
  std::string why_not;  // why the probes are not loaded (empty when in_use)
  std::vector<driver::ProbeStatus> programs;
};

struct SamplingHealth {
  uint64_t samples = 0;                     // intervals measured into a Window
  uint64_t failed_samples = 0;              // intervals whose Window could not be computed
  uint64_t missed_intervals = 0;            // deadlines passed before the loop got to them
  uint64_t windows = 0;                     // tuner windows closed
  std::optional<absl::Time> last_sample;    // end of the latest interval (wall clock)
  double last_sampling_seconds = 0;         // how long the latest collection took
  std::string last_error;                   // latest failed sample or tuner window, "" if none
  std::vector<model::SourceState> sources;  // of the latest snapshot
  std::vector<driver::MapPressure> bpf_maps;  // the probes' hash maps, as the latest read left them
};

struct StoreHealth {
  bool configured = false;  // false when the store could not be opened
  bool healthy = false;     // the latest store operation succeeded
  uint64_t errors = 0;      // failed store operations since start
  std::string last_error;
  std::optional<absl::Time> last_error_time;
  std::string path;
};

struct RecommendationSet {
  // Why the list is empty or absent ("no tuner window yet", "observe mode", the tuner's error).
  std::string reason;
  std::optional<absl::Time> window_start;
  std::optional<absl::Time> window_end;
  uint32_t samples = 0;  // intervals the window aggregated
  std::vector<tuner::Recommendation> recommendations;
};

// A change apply mode's controller holds back (tuner::Held), and since when it has been held
// without a break, whatever the cause (a hold of a calm host may last hours).
struct HeldChange {
  tuner::Held held;
  absl::Time since;
};

struct ServiceStatus {
  ServiceConfig config;
  BpfHealth bpf;
  SamplingHealth sampling;
  StoreHealth store;
  std::vector<observe::OtherTuner> other_tuners;  // running at start or at the latest reload
  std::string other_tuners_unknown;  // why they could not be looked for; "" when they were
  // Knob values another hand changed between two tuner windows (knob_change_watch.h): the latest
  // few, and how many since start.
  std::vector<KnobChange> knob_changes;
  uint64_t knob_changes_total = 0;
  // Apply mode: the changes the latest tuner window held back; empty in other modes.
  std::vector<HeldChange> held;
};

}  // namespace nictune::service
