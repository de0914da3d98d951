#include "tests/support/serving_nictuned.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "tests/support/loopback_http.h"
#include "tests/support/proc_pid.h"

namespace nictune::testing_support {

absl::StatusOr<nlohmann::json> GetJsonLoopback(uint16_t port, const std::string& target) {
  absl::StatusOr<HttpReply> reply = HttpGetLoopback(port, target, absl::Seconds(5));
  if (!reply.ok()) return reply.status();
  if (reply->status != 200) {
    return absl::UnavailableError(
        absl::StrCat("GET ", target, ": HTTP ", reply->status, ": ", reply->body));
  }
  nlohmann::json json = nlohmann::json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::DataLossError(absl::StrCat("GET ", target, ": not JSON: ", reply->body));
  }
  return json;
}

absl::StatusOr<BackgroundProgram> StartServingNictuned(const std::vector<std::string>& argv,
                                                       uint16_t port, absl::Duration timeout) {
  absl::StatusOr<BackgroundProgram> agent = BackgroundProgram::Start(argv);
  if (!agent.ok()) return agent.status();
  const absl::Time until = absl::Now() + timeout;
  absl::Status last = absl::DeadlineExceededError("not asked yet");
  while (absl::Now() < until) {
    absl::StatusOr<bool> running = StillRunning(agent->pid());
    if (!running.ok()) return running.status();
    if (!*running) break;
    absl::StatusOr<nlohmann::json> status = GetJsonLoopback(port, "/api/v1/status");
    if (status.ok() &&
        status->value(nlohmann::json::json_pointer("/sampling/windows"), int64_t{0}) >= 1) {
      return *std::move(agent);
    }
    last = status.ok() ? absl::UnavailableError("no tuner window closed yet") : status.status();
    absl::SleepFor(absl::Milliseconds(100));
  }
  absl::StatusOr<ProgramOutput> exited = agent->Wait(absl::Seconds(5));
  return absl::DeadlineExceededError(absl::StrCat(
      "`", absl::StrJoin(argv, " "), "` not serving after ", absl::FormatDuration(timeout),
      " (last: ", last.message(), "); exit ", exited.ok() ? exited->exit_code : -1,
      ", stderr: ", exited.ok() ? exited->err : exited.status().ToString()));
}

}  // namespace nictune::testing_support
