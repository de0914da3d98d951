// SPDX-License-Identifier: Apache-2.0
// The built nictuned in apply mode tuning an EmulatedHost's NIC, as the apply-mode tests run it,
// and the CLI beside it: the agent's log (stderr) merged into the stdout the test watches, its
// CLI socket in its state directory, and `nictune restore` retried until the agent serves.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/emulated_host.h"
#include "tests/support/subprocess.h"

namespace nictune::testing_support {

struct ApplyAgentOptions {
  std::string state_dir;  // --state_dir; the CLI socket is STATE_DIR/nictune.sock
  std::string listen;     // --listen=HOST:PORT; empty: no TCP server
  absl::Duration interval = absl::Milliseconds(500);
  absl::Duration window = absl::Seconds(2);
  absl::Duration guard = absl::Seconds(2);
  std::vector<std::string> extra_flags;  // e.g. --cooldown=1s, --tuner_interrupt_cpu_share=...
};

// The agent's argv: /bin/sh merging stderr into stdout, then nictuned --mode=apply
// --emulated_nic=DEVICE=SOCKET --on_exit=restore and the options' flags.
std::vector<std::string> ApplyAgentArgv(const EmulatedHost& host, const ApplyAgentOptions& options);

absl::StatusOr<BackgroundProgram> StartApplyAgent(const EmulatedHost& host,
                                                  const ApplyAgentOptions& options);

// What the agent logged so far (or why it could not be read).
std::string AgentLog(const BackgroundProgram& agent);

// Waits until the agent has resolved its change journal at start and returns that log line
// ("change journal resolved (--on_exit=restore): N restored, ...").
absl::StatusOr<std::string> WaitForJournalResolution(const BackgroundProgram& agent,
                                                     absl::Duration timeout);

// `nictune --socket=STATE_DIR/nictune.sock ARGS...`.
absl::StatusOr<ProgramOutput> RunNictuneCli(const std::string& state_dir,
                                            const std::vector<std::string>& args);

// `nictune [extra_args...] restore`, retried while no agent answers on the socket (exit 3: it
// serves after the journal is resolved and the probes are loaded), for up to `timeout`.
absl::StatusOr<ProgramOutput> RestoreThroughCli(const std::string& state_dir,
                                                const std::vector<std::string>& extra_args = {},
                                                absl::Duration timeout = absl::Seconds(30));

}  // namespace nictune::testing_support
