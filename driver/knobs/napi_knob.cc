// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/napi_knob.h"

#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_status.h"
#include "driver/netlink/netdev_netlink.h"

namespace nictune::driver::knobs {
namespace {

using netlink::NapiConfig;
using netlink::NapiConfigChange;
using netlink::NapiInfo;
using tuner::Knob;

absl::StatusOr<NapiInfo> GetNapi(uint32_t napi_id, const std::string& what) {
  absl::StatusOr<NapiConfig> config = NapiConfig::Open();
  if (!config.ok()) return InKnobContext(config.status(), what);
  absl::StatusOr<NapiInfo> napi = config->Get(napi_id);
  if (!napi.ok()) return InKnobContext(napi.status(), what);
  return napi;
}

absl::Status SetNapi(const NapiConfigChange& change, const std::string& what) {
  absl::StatusOr<NapiConfig> config = NapiConfig::Open();
  if (!config.ok()) return InKnobContext(config.status(), what);
  return InKnobContext(config->Set(change), what);
}

}  // namespace

absl::StatusOr<NapiInfo> NapiKnob::GetOwnNapi(const std::string& what) const {
  absl::StatusOr<NapiInfo> napi = GetNapi(napi_id_, what);
  if (!napi.ok()) return napi.status();
  // NAPI ids are reused once a device goes away: never read or write another device's instance.
  if (napi->ifindex != ifindex_) {
    return absl::NotFoundError(absl::StrCat(what, ": napi ", napi_id_, " now belongs to ifindex ",
                                            napi->ifindex, ", not ", ifindex_));
  }
  return napi;
}

absl::StatusOr<int64_t> NapiKnob::Read() {
  const std::string what = DescribeKnob(address_);
  absl::StatusOr<NapiInfo> napi = GetOwnNapi(what);
  if (!napi.ok()) return napi.status();
  std::optional<uint64_t> value;
  if (address_.knob == Knob::kNapiDeferHardIrqs) value = napi->defer_hard_irqs;
  if (address_.knob == Knob::kGroFlushTimeout) value = napi->gro_flush_timeout_ns;
  if (!value) {
    return absl::UnimplementedError(
        absl::StrCat(what, ": unsupported: napi-get does not report it on this kernel"));
  }
  if (*value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::DataLossError(absl::StrCat(what, ": napi-get reported ", *value,
                                            ", beyond the signed 64-bit values knobs carry"));
  }
  return static_cast<int64_t>(*value);
}

absl::Status NapiKnob::Write(int64_t value) {
  if (absl::Status status = CheckKnobValue(address_, value); !status.ok()) return status;
  const std::string what = DescribeKnob(address_);
  if (absl::StatusOr<NapiInfo> napi = GetOwnNapi(what); !napi.ok()) return napi.status();
  NapiConfigChange change;
  change.napi_id = napi_id_;
  if (address_.knob == Knob::kNapiDeferHardIrqs) {
    change.defer_hard_irqs = static_cast<uint32_t>(value);
  } else if (address_.knob == Knob::kGroFlushTimeout) {
    change.gro_flush_timeout_ns = static_cast<uint64_t>(value);
  } else {
    return absl::InternalError(absl::StrCat(what, ": not a NAPI knob"));
  }
  return SetNapi(change, what);
}

absl::StatusOr<uint64_t> ReadNapiIrqSuspendTimeout(uint32_t napi_id) {
  const std::string what = absl::StrCat("irq_suspend_timeout on napi ", napi_id);
  absl::StatusOr<NapiInfo> napi = GetNapi(napi_id, what);
  if (!napi.ok()) return napi.status();
  if (!napi->irq_suspend_timeout_ns) {
    return absl::UnimplementedError(
        absl::StrCat(what, ": unsupported: napi-get does not report it on this kernel"));
  }
  return *napi->irq_suspend_timeout_ns;
}

absl::Status WriteNapiIrqSuspendTimeout(uint32_t napi_id, uint64_t nanoseconds) {
  NapiConfigChange change;
  change.napi_id = napi_id;
  change.irq_suspend_timeout_ns = nanoseconds;
  return SetNapi(change, absl::StrCat("irq_suspend_timeout on napi ", napi_id));
}

}  // namespace nictune::driver::knobs
