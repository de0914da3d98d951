// SPDX-License-Identifier: Apache-2.0
// The built nictuned started by a test and waited for until it serves: its HTTP server answers
// /api/v1/status and the first tuner window has closed, so sampling runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune::testing_support {

// What "serving" waits for: the first tuner window closed (status, /metrics and
// recommendations all have data), or only the first interval sampled (probes attached, /metrics
// published), which at the default --window=10s comes 9 s sooner.
enum class NictunedReady { kFirstTunerWindow, kFirstSample };

// Starts `argv` (nictuned and its flags, one of them --listen=127.0.0.1:<port>) and waits up to
// `timeout`, asking /api/v1/status from this thread's network namespace. Fails with the agent's
// stderr when it exits first or does not get there in time.
absl::StatusOr<BackgroundProgram> StartServingNictuned(
    const std::vector<std::string>& argv, uint16_t port, absl::Duration timeout,
    NictunedReady ready = NictunedReady::kFirstTunerWindow);

// A built nictuned serving on a free loopback port, with a state directory of its own and no
// CLI socket. Destroyed, it is killed before its directory goes.
struct LoopbackAgent {
  TempDir state_dir;
  uint16_t port = 0;
  BackgroundProgram program;
};

// nictuned --listen=127.0.0.1:PORT --state_dir=DIR --socket= and `flags`, started and waited for
// as StartServingNictuned does; `name` prefixes the state directory's.
absl::StatusOr<LoopbackAgent> StartLoopbackAgent(
    const std::string& name, const std::vector<std::string>& flags,
    NictunedReady ready = NictunedReady::kFirstTunerWindow,
    absl::Duration timeout = absl::Seconds(60));

// GET http://127.0.0.1:<port><target> answered 200 with a JSON body.
absl::StatusOr<nlohmann::json> GetJsonLoopback(uint16_t port, const std::string& target);

// The agent's /api/v1/snapshot once it has closed an interval after the one ending at
// `after_end_ns` (0: any); DeadlineExceeded when none closes within `within`.
absl::StatusOr<nlohmann::json> NextSnapshot(uint16_t port, int64_t after_end_ns,
                                            absl::Duration within);

// The snapshot `intervals` intervals on from `from` (its end_unix_ns; an empty `from` is any
// interval), each of them closed within `within` of the one before.
absl::StatusOr<nlohmann::json> SnapshotAfterIntervals(uint16_t port, const nlohmann::json& from,
                                                      int intervals, absl::Duration within);

}  // namespace nictune::testing_support
