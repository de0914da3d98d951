// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/control_protocol.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::driver::emulated {
namespace {

bool IsSettableKey(absl::string_view key) {
  return key == kKeyRxUsecs || key == kKeyRxFrames || key == kKeyAdaptiveRx || key == kKeyRingSize;
}

absl::Status Malformed(absl::string_view line, absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("control request '", line, "': expected ", expected));
}

// Takes a trailing "queue=<index>" off `words`; false when it is there but not an index.
bool TakeQueue(std::vector<absl::string_view>& words, std::optional<size_t>& queue) {
  absl::string_view last = words.back();
  if (!absl::ConsumePrefix(&last, "queue=")) return true;
  size_t index = 0;
  if (!absl::SimpleAtoi(last, &index)) return false;
  queue = index;
  words.pop_back();
  return true;
}

absl::StatusCode CodeFromName(absl::string_view name) {
  for (int code = 0; code <= 16; ++code) {
    const auto status_code = static_cast<absl::StatusCode>(code);
    if (absl::StatusCodeToString(status_code) == name) return status_code;
  }
  return absl::StatusCode::kUnknown;
}

std::string QueueSuffix(const ControlRequest& request) {
  return request.queue ? absl::StrCat(" queue=", *request.queue) : "";
}

}  // namespace

absl::StatusOr<ControlRequest> ParseControlRequest(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (words.empty()) return Malformed(line, "GET, SET or SHUTDOWN");
  ControlRequest request;
  if (words.size() >= 3 && words[1] != "flow_pps" && !TakeQueue(words, request.queue)) {
    return Malformed(line, "queue=<queue index>");
  }
  if (words[0] == "SHUTDOWN" && words.size() == 1) {
    request.verb = ControlVerb::kShutdown;
    return request;
  }
  if (words[0] == "GET" && words.size() == 2) {
    if (!IsSettableKey(words[1]) && words[1] != kKeyCounters) {
      return Malformed(line, "GET rx_usecs|rx_frames|adaptive_rx|ring_size|counters");
    }
    request.verb = ControlVerb::kGet;
    request.key = std::string(words[1]);
    return request;
  }
  if (words[0] == "SET" && words.size() == 4 && words[1] == "flow_pps") {
    request.verb = ControlVerb::kSetFlowRate;
    if (!absl::SimpleAtoi(words[2], &request.flow) ||
        !absl::SimpleAtod(words[3], &request.rate_pps)) {
      return Malformed(line, "SET flow_pps <flow index> <packets per second>");
    }
    return request;
  }
  if (words[0] == "SET" && words.size() == 3 && IsSettableKey(words[1])) {
    request.verb = ControlVerb::kSet;
    request.key = std::string(words[1]);
    if (!absl::SimpleAtoi(words[2], &request.value)) {
      return Malformed(line, absl::StrCat("an integer value for ", words[1]));
    }
    return request;
  }
  return Malformed(line,
                   "GET <key>, SET rx_usecs|rx_frames|adaptive_rx|ring_size <integer>, "
                   "SET flow_pps <flow> <pps> or SHUTDOWN");
}

std::string FormatControlRequest(const ControlRequest& request) {
  switch (request.verb) {
    case ControlVerb::kGet:
      return absl::StrCat("GET ", request.key, QueueSuffix(request));
    case ControlVerb::kSet:
      return absl::StrCat("SET ", request.key, " ", request.value, QueueSuffix(request));
    case ControlVerb::kSetFlowRate:
      return absl::StrFormat("SET flow_pps %d %.17g", request.flow, request.rate_pps);
    case ControlVerb::kShutdown:
      return "SHUTDOWN";
  }
  return "";
}

std::string FormatOkResponse(absl::string_view value) { return absl::StrCat("OK ", value); }

std::string FormatErrorResponse(const absl::Status& status) {
  // One line whatever the message holds.
  std::string message(status.message());
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return absl::StrCat("ERR ", absl::StatusCodeToString(status.code()), " ", message);
}

absl::StatusOr<std::string> ParseControlResponse(absl::string_view line) {
  line = absl::StripTrailingAsciiWhitespace(line);
  if (absl::ConsumePrefix(&line, "OK")) {
    return std::string(absl::StripLeadingAsciiWhitespace(line));
  }
  if (absl::ConsumePrefix(&line, "ERR ")) {
    const size_t space = line.find(' ');
    const absl::string_view code = line.substr(0, space);
    const absl::string_view message =
        space == absl::string_view::npos ? absl::string_view() : line.substr(space + 1);
    const absl::StatusCode status_code = CodeFromName(code);
    if (status_code == absl::StatusCode::kOk) {
      return absl::InternalError(absl::StrCat("emulated NIC answered ERR with code OK: ", line));
    }
    return absl::Status(status_code, message);
  }
  return absl::InternalError(
      absl::StrCat("emulated NIC answered '", line, "': expected OK or ERR"));
}

}  // namespace nictune::driver::emulated
