// SPDX-License-Identifier: Apache-2.0
// A server a test starts and waits for until it answers (nictuned, node_exporter): the program
// is started, then `ready` is asked until it says OK, the program exits, or the time is up.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/subprocess.h"

namespace nictune::testing_support {

// Starts `argv` and calls `ready` every `poll` until it returns OK. Fails, naming the command,
// `ready`'s last answer, the exit code and the program's stderr, when it exits first or is not
// ready within `timeout` (then it is killed).
absl::StatusOr<BackgroundProgram> StartWhenReady(const std::vector<std::string>& argv,
                                                 const std::function<absl::Status()>& ready,
                                                 absl::Duration timeout,
                                                 absl::Duration poll = absl::Milliseconds(100));

}  // namespace nictune::testing_support
