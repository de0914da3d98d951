// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/knob_catalog.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "driver/knobs/knob_status.h"

namespace nictune::driver::knobs {
namespace {

using tuner::Knob;

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
// SOCK_MIN_RCVBUF = 2048 + SKB_DATA_ALIGN(sizeof(struct sk_buff)): 2304 on 64-bit kernels
// (sk_buff is 224 bytes in 6.18's BTF, aligned to 256). rmem_default/rmem_max reject less.
constexpr int64_t kSockMinRcvbuf = 2304;

constexpr KnobSpec kSpecs[] = {
    {Knob::kRxUsecs, KnobHome::kEthtoolCoalesce, "", {0, kU32Max}, "u32 rx-usecs"},
    {Knob::kRxFrames, KnobHome::kEthtoolCoalesce, "", {0, kU32Max}, "u32 rx-frames"},
    {Knob::kAdaptiveRx, KnobHome::kEthtoolCoalesce, "", {0, 1}, "adaptive-rx is off/on"},
    {Knob::kRxRing,
     KnobHome::kEthtoolRings,
     "",
     {1, kU32Max},
     "u32 rx, at most the driver's rx max"},
    // The kernel takes any int here (proc_dointvec), but a budget <= 0 ends every NET_RX softirq
    // after one poll: never a value to recommend.
    {Knob::kNetdevBudget,
     KnobHome::kHostSysctl,
     "sys/net/core/netdev_budget",
     {1, kIntMax},
     "positive int; <= 0 stops every softirq run after one poll"},
    {Knob::kNetdevBudgetUsecs,
     KnobHome::kHostSysctl,
     "sys/net/core/netdev_budget_usecs",
     {0, kIntMax},
     "proc_dointvec_minmax, min 0"},
    {Knob::kDevWeight,
     KnobHome::kHostSysctl,
     "sys/net/core/dev_weight",
     {1, kIntMax},
     "proc_do_dev_weight, min 1"},
    {Knob::kDevWeightRxBias,
     KnobHome::kHostSysctl,
     "sys/net/core/dev_weight_rx_bias",
     {1, kIntMax},
     "proc_do_dev_weight, min 1"},
    {Knob::kDevWeightTxBias,
     KnobHome::kHostSysctl,
     "sys/net/core/dev_weight_tx_bias",
     {1, kIntMax},
     "proc_do_dev_weight, min 1"},
    {Knob::kNapiDeferHardIrqs,
     KnobHome::kDeviceSysfs,
     "napi_defer_hard_irqs",
     {0, kIntMax},
     "napi_defer_hard_irqs is capped at S32_MAX"},
    {Knob::kGroFlushTimeout,
     KnobHome::kDeviceSysfs,
     "gro_flush_timeout",
     {0, kI64Max},
     "unsigned nanoseconds"},
    {Knob::kNapiThreaded,
     KnobHome::kDeviceSysfs,
     "threaded",
     {0, 1},
     "0 or 1; 6.18's sysfs refuses 2 (busy-polling threads), and any value on a device without "
     "NAPI instances"},
    {Knob::kRmemDefault,
     KnobHome::kHostSysctl,
     "sys/net/core/rmem_default",
     {kSockMinRcvbuf, kIntMax},
     "min SOCK_MIN_RCVBUF"},
    {Knob::kRmemMax,
     KnobHome::kHostSysctl,
     "sys/net/core/rmem_max",
     {kSockMinRcvbuf, kIntMax},
     "min SOCK_MIN_RCVBUF"},
    {Knob::kUdpRmemMin,
     KnobHome::kHostSysctl,
     "sys/net/ipv4/udp_rmem_min",
     {1, kIntMax},
     "proc_dointvec_minmax, min 1"},
    {Knob::kSoRcvbuf,
     KnobHome::kAdviceOnly,
     "",
     {kSockMinRcvbuf, kIntMax},
     "advice only: applications own their sockets"},
};

}  // namespace

const KnobSpec& SpecOf(Knob knob) {
  for (const KnobSpec& spec : kSpecs) {
    if (spec.knob == knob) return spec;
  }
  // Every enumerator has a row (a unit test walks kAllKnobs); a new one without a row is advice.
  static constexpr KnobSpec kUnknown{};
  return kUnknown;
}

absl::Status CheckKnobValue(const KnobAddress& address, int64_t value) {
  const KnobSpec& spec = SpecOf(address.knob);
  if (value >= spec.range.min && value <= spec.range.max) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      DescribeKnob(address), ": ", value, " is outside ", spec.range.min, "..", spec.range.max,
      " (", absl::string_view(spec.range_basis.data(), spec.range_basis.size()), ")"));
}

}  // namespace nictune::driver::knobs
