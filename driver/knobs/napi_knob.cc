#include "driver/knobs/napi_knob.h"

#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/netlink/netdev_netlink.h"

namespace nictune::driver::knobs {
namespace {

using netlink::NapiConfig;
using netlink::NapiConfigChange;
using netlink::NapiInfo;
using tuner::Knob;

absl::Status Prefixed(const absl::Status& status, const std::string& what) {
  const char* state = status.code() == absl::StatusCode::kUnimplemented ? "unsupported: " : "";
  return absl::Status(status.code(), absl::StrCat(what, ": ", state, status.message()));
}

absl::StatusOr<NapiInfo> GetNapi(uint32_t napi_id, const std::string& what) {
  absl::StatusOr<NapiConfig> config = NapiConfig::Open();
  if (!config.ok()) return Prefixed(config.status(), what);
  absl::StatusOr<NapiInfo> napi = config->Get(napi_id);
  if (!napi.ok()) return Prefixed(napi.status(), what);
  return napi;
}

absl::Status SetNapi(const NapiConfigChange& change, const std::string& what) {
  absl::StatusOr<NapiConfig> config = NapiConfig::Open();
  if (!config.ok()) return Prefixed(config.status(), what);
  if (absl::Status status = config->Set(change); !status.ok()) return Prefixed(status, what);
  return absl::OkStatus();
}

}  // namespace

std::string NapiKnob::Describe() const {
  const std::string_view name = tuner::KnobName(address_.knob);
  return absl::StrCat(absl::string_view(name.data(), name.size()), " on ", address_.target);
}

absl::StatusOr<int64_t> NapiKnob::Read() {
  const std::string what = Describe();
  absl::StatusOr<NapiInfo> napi = GetNapi(napi_id_, what);
  if (!napi.ok()) return napi.status();
  if (napi->ifindex != ifindex_) {
    return absl::NotFoundError(absl::StrCat(what, ": napi ", napi_id_, " now belongs to ifindex ",
                                            napi->ifindex, ", not ", ifindex_));
  }
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
  const std::string what = Describe();
  // The id may have been reused by another device since we opened the knob: never write there.
  absl::StatusOr<NapiInfo> napi = GetNapi(napi_id_, what);
  if (!napi.ok()) return napi.status();
  if (napi->ifindex != ifindex_) {
    return absl::NotFoundError(absl::StrCat(what, ": napi ", napi_id_, " now belongs to ifindex ",
                                            napi->ifindex, ", not ", ifindex_));
  }
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
