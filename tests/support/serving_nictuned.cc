// SPDX-License-Identifier: Apache-2.0
#include "tests/support/serving_nictuned.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/support/build_paths.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/ready_program.h"

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

absl::StatusOr<nlohmann::json> NextSnapshot(uint16_t port, int64_t after_end_ns,
                                            absl::Duration within) {
  const absl::Time until = absl::Now() + within;
  while (absl::Now() < until) {
    absl::StatusOr<nlohmann::json> snapshot = GetJsonLoopback(port, "/api/v1/snapshot");
    if (snapshot.ok() && snapshot->value("end_unix_ns", int64_t{0}) != after_end_ns) {
      return snapshot;
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  return absl::DeadlineExceededError(absl::StrCat("nictuned on port ", port,
                                                  " closed no interval in ",
                                                  absl::FormatDuration(within)));
}

absl::StatusOr<nlohmann::json> SnapshotAfterIntervals(uint16_t port, const nlohmann::json& from,
                                                      int intervals, absl::Duration within) {
  nlohmann::json snapshot = from;
  for (int i = 0; i < intervals; ++i) {
    const int64_t end = snapshot.is_object() ? snapshot.value("end_unix_ns", int64_t{0}) : 0;
    absl::StatusOr<nlohmann::json> next = NextSnapshot(port, end, within);
    if (!next.ok()) return next.status();
    snapshot = *std::move(next);
  }
  return snapshot;
}

absl::StatusOr<BackgroundProgram> StartServingNictuned(const std::vector<std::string>& argv,
                                                       uint16_t port, absl::Duration timeout,
                                                       NictunedReady ready) {
  const bool window = ready == NictunedReady::kFirstTunerWindow;
  const nlohmann::json::json_pointer counter(window ? "/sampling/windows" : "/sampling/samples");
  return StartWhenReady(
      argv,
      [&]() -> absl::Status {
        absl::StatusOr<nlohmann::json> status = GetJsonLoopback(port, "/api/v1/status");
        if (!status.ok()) return status.status();
        if (status->value(counter, int64_t{0}) >= 1) return absl::OkStatus();
        return absl::UnavailableError(window ? "no tuner window closed yet" : "no interval yet");
      },
      timeout);
}

absl::StatusOr<LoopbackAgent> StartLoopbackAgent(const std::string& name,
                                                 const std::vector<std::string>& flags,
                                                 NictunedReady ready, absl::Duration timeout) {
  absl::StatusOr<TempDir> dir = TempDir::Create(name);
  if (!dir.ok()) return dir.status();
  absl::StatusOr<uint16_t> port = FreeLoopbackPort();
  if (!port.ok()) return port.status();
  std::vector<std::string> argv = {BinaryDir() + "/agent/nictuned",
                                   absl::StrCat("--listen=127.0.0.1:", *port),
                                   "--state_dir=" + dir->path(), "--socket="};
  argv.insert(argv.end(), flags.begin(), flags.end());
  absl::StatusOr<BackgroundProgram> program = StartServingNictuned(argv, *port, timeout, ready);
  if (!program.ok()) return program.status();
  return LoopbackAgent{.state_dir = *std::move(dir), .port = *port, .program = *std::move(program)};
}

}  // namespace nictune::testing_support
