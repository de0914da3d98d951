// SPDX-License-Identifier: Apache-2.0
// A TCP port on 127.0.0.1 that nothing listens on now, for a server a test starts: the kernel
// picks it (bind to port 0), and the socket is closed again before the server binds it.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"

namespace nictune::testing_support {

absl::StatusOr<uint16_t> FreeLoopbackPort();

}  // namespace nictune::testing_support
