// SPDX-License-Identifier: Apache-2.0
// Settings of one NAPI instance over netdev netlink (napi-get / napi-set, Linux 6.13+): the
// per-instance twins of the device-wide sysfs napi_defer_hard_irqs and gro_flush_timeout, and
// irq-suspend-timeout, which has no device-wide file and no tuner Knob yet. Whether the kernel has
// napi-set is decided at run time from the netdev family's op list. Acts in the calling thread's
// network namespace.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "driver/knobs/knob_access.h"
#include "driver/netlink/netdev_topology.h"

namespace nictune::driver::knobs {

class NapiKnob final : public KnobAccess {
 public:
  // address.knob is kNapiDeferHardIrqs or kGroFlushTimeout; the NAPI must belong to the device
  // with `ifindex` (checked on every call: NAPI ids are reused when a device goes away).
  NapiKnob(KnobAddress address, uint32_t napi_id, int32_t ifindex)
      : address_(std::move(address)), napi_id_(napi_id), ifindex_(ifindex) {}

  const KnobAddress& address() const override { return address_; }
  absl::StatusOr<int64_t> Read() override;
  absl::Status Write(int64_t value) override;

 private:
  absl::StatusOr<netlink::NapiInfo> GetOwnNapi(const std::string& what) const;

  KnobAddress address_;
  uint32_t napi_id_;
  int32_t ifindex_;
};

// irq-suspend-timeout (ns) of one NAPI instance. Unimplemented when the kernel lacks napi-set or
// does not report the setting.
absl::StatusOr<uint64_t> ReadNapiIrqSuspendTimeout(uint32_t napi_id);
absl::Status WriteNapiIrqSuspendTimeout(uint32_t napi_id, uint64_t nanoseconds);

}  // namespace nictune::driver::knobs
