// SPDX-License-Identifier: Apache-2.0
// The one small interface through which the agent reads and writes a mitigation setting
// (docs/design.md "Knobs"). Real devices and host sysctls implement it in driver/knobs; the
// emulated NIC (driver/emulated) implements it over its control socket; tests inject fakes.
//
// "Unsupported" (EOPNOTSUPP, a missing sysfs file, a kernel without napi-set) is a state, not an
// error: Read() and Write() return absl::StatusCode::kUnimplemented for it, and callers report it
// and never retry it or save an original for it. Every other failure names the knob, the target
// and the errno.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/knob.h"

namespace nictune::driver::knobs {

// Which setting: a tuner knob on a target. target is "host" for sysctls, the device name for
// device knobs ("eth0"), "DEV napi ID" for a NAPI instance.
struct KnobAddress {
  tuner::Knob knob = tuner::Knob::kRxUsecs;
  std::string target;
};

class KnobAccess {
 public:
  virtual ~KnobAccess() = default;

  virtual const KnobAddress& address() const = 0;
  // The value the kernel holds now.
  virtual absl::StatusOr<int64_t> Read() = 0;
  // Writes and returns once the kernel has accepted the value; the caller reads it back.
  virtual absl::Status Write(int64_t value) = 0;
};

// Opens knobs by address. One implementation per kind of device owner: the kernel (real NICs,
// sysctls, sysfs) and the emulated NIC.
class KnobProvider {
 public:
  virtual ~KnobProvider() = default;

  // NotFound when this provider does not own the target (the next provider is asked);
  // Unimplemented when it owns the target but the knob is not supported there.
  virtual absl::StatusOr<std::unique_ptr<KnobAccess>> Open(const KnobAddress& address) = 0;
};

// True for the status a KnobAccess returns for an unsupported knob.
inline bool IsUnsupported(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnimplemented;
}

}  // namespace nictune::driver::knobs
