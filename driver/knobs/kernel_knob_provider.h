// SPDX-License-Identifier: Apache-2.0
// The KnobProvider for everything the running kernel owns: host sysctls, per-device sysfs
// settings, ethtool coalescing, and NAPI instances (napi-set). The emulated NIC has its own.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "driver/knobs/knob_access.h"

namespace nictune::driver::knobs {

// Where procfs and sysfs are mounted; tests point these at a fake tree. Netlink (ethtool,
// napi-set) always speaks to the kernel of the calling thread's network namespace, and the
// device checks use SYS_ROOT/class/net, so both must describe the same namespace.
struct KernelPaths {
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
};

class KernelKnobProvider final : public KnobProvider {
 public:
  explicit KernelKnobProvider(KernelPaths paths) : paths_(std::move(paths)) {}

  // Host sysctls need target "host"; device knobs need "DEV" (or "DEV napi ID" for
  // napi_defer_hard_irqs and gro_flush_timeout of one NAPI instance) naming a device that exists
  // under SYS_ROOT/class/net, else NotFound so the next provider is asked. A knob in the wrong
  // kind of target is InvalidArgument; a knob whose file the kernel lacks, and so_rcvbuf (advice
  // only), are Unimplemented.
  absl::StatusOr<std::unique_ptr<KnobAccess>> Open(const KnobAddress& address) override;

 private:
  KernelPaths paths_;
};

}  // namespace nictune::driver::knobs
