// SPDX-License-Identifier: Apache-2.0
#include "tests/support/ready_program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "tests/support/proc_pid.h"

namespace nictune::testing_support {

absl::StatusOr<BackgroundProgram> StartWhenReady(const std::vector<std::string>& argv,
                                                 const std::function<absl::Status()>& ready,
                                                 absl::Duration timeout, absl::Duration poll) {
  absl::StatusOr<BackgroundProgram> program = BackgroundProgram::Start(argv);
  if (!program.ok()) return program.status();
  const absl::Time until = absl::Now() + timeout;
  absl::Status last = absl::DeadlineExceededError("not asked yet");
  while (absl::Now() < until) {
    absl::StatusOr<bool> running = StillRunning(program->pid());
    if (!running.ok()) return running.status();
    if (!*running) break;
    last = ready();
    if (last.ok()) return *std::move(program);
    absl::SleepFor(poll);
  }
  absl::StatusOr<ProgramOutput> exited = program->Wait(absl::Seconds(5));
  return absl::DeadlineExceededError(absl::StrCat(
      "`", absl::StrJoin(argv, " "), "` not ready after ", absl::FormatDuration(timeout),
      " (last: ", last.message(), "); exit ", exited.ok() ? exited->exit_code : -1,
      ", stderr: ", exited.ok() ? exited->err : exited.status().ToString()));
}

}  // namespace nictune::testing_support
