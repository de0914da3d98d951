// SPDX-License-Identifier: Apache-2.0
#include "tests/support/serving_nictuned.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/support/loopback_http.h"
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

}  // namespace nictune::testing_support
