// SPDX-License-Identifier: Apache-2.0
// The knobs the tuner recommends, and their names as people and the agent's actuator spell them.
#pragma once

#include <cstdint>
#include <string_view>

namespace nictune::tuner {

enum class Knob {
  kRxUsecs,            // ethtool -C rx-usecs
  kRxFrames,           // ethtool -C rx-frames
  kAdaptiveRx,         // ethtool -C adaptive-rx (0/1)
  kRxRing,             // ethtool -G rx: descriptors of each rx ring; by hand only
  kNetdevBudget,       // net.core.netdev_budget
  kNetdevBudgetUsecs,  // net.core.netdev_budget_usecs
  kDevWeight,          // net.core.dev_weight
  kDevWeightRxBias,    // net.core.dev_weight_rx_bias
  kDevWeightTxBias,    // net.core.dev_weight_tx_bias
  kNapiDeferHardIrqs,  // /sys/class/net/DEV/napi_defer_hard_irqs
  kGroFlushTimeout,    // /sys/class/net/DEV/gro_flush_timeout (ns)
  kNapiThreaded,       // /sys/class/net/DEV/threaded: NAPI polls in kernel threads; by hand only
  kRmemDefault,        // net.core.rmem_default
  kRmemMax,            // net.core.rmem_max
  kUdpRmemMin,         // net.ipv4.udp_rmem_min
  kSoRcvbuf,           // setsockopt(SO_RCVBUF) of an application socket: advice only
};

inline constexpr Knob kAllKnobs[] = {
    Knob::kRxUsecs,         Knob::kRxFrames,
    Knob::kAdaptiveRx,      Knob::kRxRing,
    Knob::kNetdevBudget,    Knob::kNetdevBudgetUsecs,
    Knob::kDevWeight,       Knob::kDevWeightRxBias,
    Knob::kDevWeightTxBias, Knob::kNapiDeferHardIrqs,
    Knob::kGroFlushTimeout, Knob::kNapiThreaded,
    Knob::kRmemDefault,     Knob::kRmemMax,
    Knob::kUdpRmemMin,      Knob::kSoRcvbuf,
};

enum class Scope { kHost, kDevice, kQueue, kNapi, kSocket };

// Stable names: they appear in metrics labels (knob="rx_usecs"), the REST API and the journal.
std::string_view KnobName(Knob knob);

// The unit of a knob's value, spelled as the recommendations' inputs spell theirs ("us", "ns",
// "B", "packets", "frames", "polls"; "bool" for on/off, "factor" for a multiplier of
// dev_weight): /metrics labels its values with it, the REST API and the CLI print it.
std::string_view KnobUnit(Knob knob);

// rx-frames, gro_flush_timeout and napi_defer_hard_irqs at 0 are off, not small: turning one on
// at a value is not a step from 0, and neither is turning it off.
constexpr bool ZeroMeansOff(Knob knob) {
  return knob == Knob::kRxFrames || knob == Knob::kGroFlushTimeout ||
         knob == Knob::kNapiDeferHardIrqs;
}
std::string_view ScopeName(Scope scope);

// A change from `from` to `to` that can only lower the interrupt rate: a longer interrupt
// interval. The receive path cannot cost more CPU for it, so a CPU rise in its guard window is
// other load or the measurement's noise, not the change's doing.
constexpr bool OnlyCutsInterrupts(Knob knob, int64_t from, int64_t to) {
  return knob == Knob::kRxUsecs && to > from;
}

// A change that acts on the traffic flowing now, so that its guard window shows what it did.
// rmem_default and rmem_max do not: they reach only sockets created, or SO_RCVBUF asked for,
// after the change.
constexpr bool ActsOnLiveTraffic(Knob knob) {
  return knob != Knob::kRmemDefault && knob != Knob::kRmemMax;
}

// Recommended to people and never written by the controller: SO_RCVBUF belongs to an
// application's socket; an rx ring is re-allocated by a change, which most drivers do by
// restarting the device (a moment without traffic that a person picks); and threaded NAPI moves
// the device's polls out of softirq time into its threads' system time, which the guard window's
// receive-path CPU share does not see, so no guard could judge it.
constexpr bool ByHandOnly(Knob knob) {
  return knob == Knob::kSoRcvbuf || knob == Knob::kRxRing || knob == Knob::kNapiThreaded;
}

// The device knobs that netdev napi-set also sets for one NAPI instance (target "DEV napi ID").
constexpr bool SetPerNapi(Knob knob) {
  return knob == Knob::kNapiDeferHardIrqs || knob == Knob::kGroFlushTimeout;
}

// The sysctls: one value for the whole host (net.core.*, net.ipv4.udp_rmem_min).
constexpr bool ActsOnHost(Knob knob) {
  switch (knob) {
    case Knob::kNetdevBudget:
    case Knob::kNetdevBudgetUsecs:
    case Knob::kDevWeight:
    case Knob::kDevWeightRxBias:
    case Knob::kDevWeightTxBias:
    case Knob::kRmemDefault:
    case Knob::kRmemMax:
    case Knob::kUdpRmemMin:
      return true;
    default:
      return false;
  }
}

}  // namespace nictune::tuner
