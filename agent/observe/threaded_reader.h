// SPDX-License-Identifier: Apache-2.0
// Per-device threaded NAPI mode, read from sysfs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::observe {

// SYS_ROOT/class/net/DEV/threaded: 0 softirq, 1 kernel threads, 2 busy-polling threads; nullopt
// when a kernel before 5.12 has no such file. A device that does not exist, a file that cannot be
// read, or a value outside 0..2 is an error naming it.
absl::StatusOr<std::optional<uint32_t>> ReadNapiThreaded(const std::string& sys_root,
                                                         const std::string& device);

// The same for each device; devices without the file are left out, as are those whose file could
// not be read, with their errors in `errors` (one device must not hide the others).
struct ThreadedReading {
  std::map<std::string, uint32_t> modes;
  std::vector<std::string> errors;
};
ThreadedReading ReadNapiThreadedModes(const std::string& sys_root,
                                      const std::vector<std::string>& devices);

}  // namespace nictune::observe
