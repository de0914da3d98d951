// SPDX-License-Identifier: Apache-2.0
// The unit a knob's value has on /metrics. Knobs count microseconds, nanoseconds, bytes, frames
// and more (tuner::KnobUnit); a family holds one unit, so a knob's current and recommended values
// go to the family of its unit, in Prometheus' base units: time in seconds.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

#include "tuner/knob.h"

namespace nictune::metrics {

// Each unit's index in kKnobValueUnits is its value.
enum class KnobValueUnit : size_t {
  kSeconds,  // rx_usecs, netdev_budget_usecs, gro_flush_timeout
  kBytes,    // rmem_default, rmem_max, udp_rmem_min
  kPackets,  // rx_frames, netdev_budget, dev_weight, rx_ring (descriptors: a packet each)
  kPolls,    // napi_defer_hard_irqs: empty polls before the interrupt is re-armed
  kRatio,    // dev_weight_rx_bias, dev_weight_tx_bias: multipliers of dev_weight
  kEnabled,  // adaptive_rx, napi_threaded: 1 on, 0 off
};

inline constexpr KnobValueUnit kKnobValueUnits[] = {
    KnobValueUnit::kSeconds, KnobValueUnit::kBytes, KnobValueUnit::kPackets,
    KnobValueUnit::kPolls,   KnobValueUnit::kRatio, KnobValueUnit::kEnabled};

// The family unit of a knob unit (tuner::KnobUnit: "us", "B", "factor", ...); none for a unit
// no family takes.
std::optional<KnobValueUnit> ValueUnitOfUnit(std::string_view unit);
KnobValueUnit ValueUnitOf(tuner::Knob knob);

// What one of the knob's own units is in its family's: 1e-6 for microseconds.
double ValueScaleOf(tuner::Knob knob);

// nictune_knob_current_seconds, ... nictune_knob_current_enabled.
std::string_view CurrentFamilyOf(KnobValueUnit unit);
std::string_view RecommendedFamilyOf(KnobValueUnit unit);

// The catalog's unit word, as the family's name ends: "seconds", ..., "enabled".
std::string_view ValueUnitName(KnobValueUnit unit);

// How a help text reads the unit: "seconds", ..., "empty polls", "1 on, 0 off".
std::string_view ValueUnitWords(KnobValueUnit unit);

}  // namespace nictune::metrics
