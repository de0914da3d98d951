// SPDX-License-Identifier: Apache-2.0
// `nictuned --check`: what nictuned can and cannot do on this host, before it is run as a
// service. nictuned gathers the facts the way a start would (the BPF probes loaded and attached,
// one short window of every procfs and sysfs source, apply mode's self-tests, other tuners);
// this turns them into one line per item, each saying what works, what works with less, and what
// cannot work, and why. Pure: nothing here reads the host.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/check/knob_reach.h"
#include "agent/check/tracepoints.h"
#include "agent/model/source.h"
#include "agent/observe/other_tuners.h"
#include "driver/probe_source.h"

namespace nictune::check {

// A capability the agent uses, and whether this process holds it (CheckCapabilityHeld).
struct HeldCapability {
  std::string name;  // "CAP_BPF"
  absl::Status held;
};

struct SupportFacts {
  std::string kernel;  // "Linux 6.18.44 x86_64"; empty when uname failed
  // The kernel's own type information, which the probes' CO-RE relocations need.
  absl::Status btf;
  // tracefs, where a tracepoint program's event id is read (CheckTracefs); OK with its path.
  absl::StatusOr<std::string> tracefs = absl::UnknownError("not checked");
  // The tracepoints the probes attach to, looked up before they load (CheckTracepoints).
  absl::StatusOr<std::vector<TracepointPresence>> tracepoints = absl::UnknownError("not checked");
  std::vector<HeldCapability> capabilities;
  // The probes as loaded: empty with a reason when none could be opened.
  std::vector<driver::ProbeStatus> probes;
  std::string probes_unavailable;
  // One window's sources, or why the window could not be computed.
  std::vector<model::SourceState> sources;
  absl::Status window;
  absl::StatusOr<std::vector<observe::OtherTuner>> other_tuners =
      std::vector<observe::OtherTuner>{};
  // The change journal and the history: a start without them runs on, except in apply mode.
  absl::Status state_dir;
  // What a start takes before anything else and stops without (another agent, another program
  // on the port): the state directory's lock, --listen's address ("" when disabled) and --socket's
  // path ("" when disabled), each as Check*Free found it.
  absl::Status state_lock;
  std::string listen;
  absl::Status listen_free;
  std::string socket;
  absl::Status socket_free;
  // The host's knobs, then each device's (CheckKnobReach).
  std::vector<KnobReach> knobs;
  bool apply = false;  // --mode=apply: its self-tests below were made
  absl::Status sysctls_writable;
  absl::Status device_knobs_writable;  // CAP_NET_ADMIN, for ethtool's settings
};

// kCannot: the mode asked for cannot run (apply mode without its journal or writable
// sysctls); kLimited: it runs with less (procfs without the probes, a program the kernel refused,
// another tuner on the same knobs).
enum class Support { kOk, kLimited, kCannot };

struct SupportItem {
  Support support = Support::kOk;
  std::string what;    // "BPF probes", "/proc/interrupts", ...
  std::string detail;  // what it gives, or why not
};

std::vector<SupportItem> SupportReport(const SupportFacts& facts);

// One aligned line an item ("ok", "limited", "cannot"), then a verdict line.
// The details wrap under their column within `width` (cli::TerminalWidth: 80 off a terminal).
std::string FormatSupportReport(const std::vector<SupportItem>& items, size_t width);

// 0 when nothing cannot work, 1 otherwise.
int SupportExitCode(const std::vector<SupportItem>& items);

}  // namespace nictune::check
