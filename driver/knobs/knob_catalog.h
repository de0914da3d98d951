// SPDX-License-Identifier: Apache-2.0
// Where each tuner knob lives in the kernel and the values the kernel accepts for it
// (docs/design.md "Knobs"). Values are checked here before any write, so that a bad recommendation
// is an InvalidArgument naming the knob instead of a half-understood EINVAL from the kernel.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "driver/knobs/knob_access.h"
#include "tuner/knob.h"

namespace nictune::driver::knobs {

enum class KnobHome {
  kHostSysctl,       // PROC_ROOT/<path>, target "host"
  kDeviceSysfs,      // SYS_ROOT/class/net/DEV/<path>, or napi-set for "DEV napi ID"
  kEthtoolCoalesce,  // ethtool COALESCE_GET/SET, target "DEV"
  kEthtoolRings,     // ethtool RINGS_GET/SET (rx_ring.h), target "DEV"; by hand only
  kAdviceOnly,       // recommended to people, never written (SO_RCVBUF of someone's socket)
};

struct KnobRange {
  int64_t min = 0;
  int64_t max = 0;
};

struct KnobSpec {
  tuner::Knob knob = tuner::Knob::kRxUsecs;
  KnobHome home = KnobHome::kAdviceOnly;
  std::string_view path;  // relative to PROC_ROOT or to SYS_ROOT/class/net/DEV; empty otherwise
  KnobRange range;
  std::string_view range_basis;  // why the range is what it is (the kernel's check)
};

const KnobSpec& SpecOf(tuner::Knob knob);

// InvalidArgument "<knob> on <target>: <value> is outside <min>..<max> (<basis>)" or Ok.
absl::Status CheckKnobValue(const KnobAddress& address, int64_t value);

}  // namespace nictune::driver::knobs
