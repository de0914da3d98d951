// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/flow_spec.h"

#include <cmath>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::driver::emulated {
namespace {

absl::Status SetField(FlowSpec& flow, absl::string_view key, absl::string_view value) {
  if (key == "pps") {
    double rate = 0;
    if (!absl::SimpleAtod(value, &rate)) {
      return absl::InvalidArgumentError(absl::StrCat("pps '", value, "' is not a number"));
    }
    flow.rate_pps = rate;
    return absl::OkStatus();
  }
  int64_t number = 0;
  if (!absl::SimpleAtoi(value, &number)) {
    return absl::InvalidArgumentError(absl::StrCat(key, " '", value, "' is not an integer"));
  }
  if (key == "port") {
    if (number < 1 || number > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("port ", number, " is outside 1..65535"));
    }
    flow.port = static_cast<uint16_t>(number);
  } else if (key == "bytes") {
    flow.frame_bytes = number;
  } else if (key == "on_us") {
    flow.on_ns = number * 1000;
  } else if (key == "off_us") {
    flow.off_ns = number * 1000;
  } else if (key == "queue") {
    flow.queue = number;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown key '", key, "' (expected port, pps, bytes, on_us, off_us, queue)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateFlow(const FlowSpec& flow) {
  if (!std::isfinite(flow.rate_pps) || flow.rate_pps < 0 || flow.rate_pps > kMaxRatePps) {
    return absl::InvalidArgumentError(absl::StrCat("flow to port ", flow.port, ": pps ",
                                                   flow.rate_pps, " is outside 0..", kMaxRatePps));
  }
  if (flow.frame_bytes < kMinFrameBytes || flow.frame_bytes > kMaxFrameBytes) {
    return absl::InvalidArgumentError(absl::StrCat("flow to port ", flow.port, ": bytes ",
                                                   flow.frame_bytes, " is outside ", kMinFrameBytes,
                                                   "..", kMaxFrameBytes));
  }
  if (flow.on_ns < 0 || flow.off_ns < 0 || (flow.off_ns > 0 && flow.on_ns == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("flow to port ", flow.port, ": on_us ", flow.on_ns / 1000, " off_us ",
                     flow.off_ns / 1000, " must be >= 0, with on_us > 0 when off_us > 0"));
  }
  if (flow.queue < kQueueByFlowIndex || flow.queue >= static_cast<int64_t>(kMaxQueues)) {
    return absl::InvalidArgumentError(absl::StrCat("flow to port ", flow.port, ": queue ",
                                                   flow.queue, " is outside 0..", kMaxQueues - 1));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<FlowSpec>> ParseFlows(absl::string_view text) {
  std::vector<FlowSpec> flows;
  for (absl::string_view item : absl::StrSplit(text, ';', absl::SkipWhitespace())) {
    FlowSpec flow;
    for (absl::string_view pair : absl::StrSplit(item, ',', absl::SkipWhitespace())) {
      const size_t equals = pair.find('=');
      if (equals == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("flow '", item, "': '", pair, "' is not key=value"));
      }
      absl::Status set = SetField(flow, absl::StripAsciiWhitespace(pair.substr(0, equals)),
                                  absl::StripAsciiWhitespace(pair.substr(equals + 1)));
      if (!set.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("flow '", item, "': ", set.message()));
      }
    }
    if (absl::Status valid = ValidateFlow(flow); !valid.ok()) return valid;
    flows.push_back(flow);
  }
  return flows;
}

}  // namespace nictune::driver::emulated
