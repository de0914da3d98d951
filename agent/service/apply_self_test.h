// SPDX-License-Identifier: Apache-2.0
// Apply mode's start-up self-test: the agent must be able to write the host's network sysctls,
// or every change would fail one by one at run time (systemd's ProtectKernelTunables=yes, a
// read-only /proc/sys in a container). Fails loudly instead.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace nictune::service {

// FailedPrecondition naming PROC_ROOT/sys/net and the errno when it is not writable.
absl::Status CheckSysctlsWritable(const std::string& proc_root);

}  // namespace nictune::service
