// SPDX-License-Identifier: Apache-2.0
#include "tuner/knob.h"

namespace nictune::tuner {

std::string_view KnobName(Knob knob) {
  switch (knob) {
    case Knob::kRxUsecs:
      return "rx_usecs";
    case Knob::kRxFrames:
      return "rx_frames";
    case Knob::kAdaptiveRx:
      return "adaptive_rx";
    case Knob::kRxRing:
      return "rx_ring";
    case Knob::kNetdevBudget:
      return "netdev_budget";
    case Knob::kNetdevBudgetUsecs:
      return "netdev_budget_usecs";
    case Knob::kDevWeight:
      return "dev_weight";
    case Knob::kDevWeightRxBias:
      return "dev_weight_rx_bias";
    case Knob::kDevWeightTxBias:
      return "dev_weight_tx_bias";
    case Knob::kNapiDeferHardIrqs:
      return "napi_defer_hard_irqs";
    case Knob::kGroFlushTimeout:
      return "gro_flush_timeout";
    case Knob::kNapiThreaded:
      return "napi_threaded";
    case Knob::kRmemDefault:
      return "rmem_default";
    case Knob::kRmemMax:
      return "rmem_max";
    case Knob::kUdpRmemMin:
      return "udp_rmem_min";
    case Knob::kSoRcvbuf:
      return "so_rcvbuf";
  }
  return "unknown";
}

std::string_view KnobUnit(Knob knob) {
  switch (knob) {
    case Knob::kRxUsecs:
    case Knob::kNetdevBudgetUsecs:
      return "us";
    case Knob::kGroFlushTimeout:
      return "ns";
    case Knob::kRxFrames:
      return "frames";
    case Knob::kAdaptiveRx:
    case Knob::kNapiThreaded:
      return "bool";
    case Knob::kRxRing:
      return "descriptors";
    case Knob::kNetdevBudget:
    case Knob::kDevWeight:
      return "packets";
    case Knob::kDevWeightRxBias:
    case Knob::kDevWeightTxBias:
      return "factor";
    case Knob::kNapiDeferHardIrqs:
      return "polls";
    case Knob::kRmemDefault:
    case Knob::kRmemMax:
    case Knob::kUdpRmemMin:
    case Knob::kSoRcvbuf:
      return "B";
  }
  return "unknown";
}

std::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kHost:
      return "host";
    case Scope::kDevice:
      return "device";
    case Scope::kQueue:
      return "queue";
    case Scope::kNapi:
      return "napi";
    case Scope::kSocket:
      return "socket";
  }
  return "unknown";
}

}  // namespace nictune::tuner
