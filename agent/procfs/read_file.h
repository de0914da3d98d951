// SPDX-License-Identifier: Apache-2.0
// Reading kernel text files whole, with errors that name the file, the operation and the errno.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nictune::procfs {

// The most a kernel text file holds here: /proc/interrupts of 4096 irqs on 256 CPUs is about 12 MB.
inline constexpr size_t kMaxKernelFileBytes = 32 << 20;

// Reads a whole procfs/sysfs file (they report size 0, so this reads until EOF). Anything but a
// regular file (a FIFO or a device under a fake --proc_root) is refused without blocking, and a
// file over max_bytes is ResourceExhausted rather than read into memory. Paths in errors are
// kernel-name text.
absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     size_t max_bytes = kMaxKernelFileBytes);

// An error naming the file and the 1-based line where the text was not understood (both as
// kernel-name text: `what` may quote the line).
absl::Status ParseError(std::string_view path, int line, std::string_view what);

}  // namespace nictune::procfs
