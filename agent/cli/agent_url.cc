// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/agent_url.h"

#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace nictune::cli {
namespace {

absl::Status Bad(absl::string_view url, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--url=", url, ": ", why));
}

}  // namespace

absl::StatusOr<AgentUrl> ParseAgentUrl(absl::string_view url) {
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "http://")) {
    return Bad(url, "expected http://HOST:PORT (https is not spoken; the agent serves plain HTTP)");
  }
  absl::ConsumeSuffix(&rest, "/");
  if (rest.find_first_of("/?#@") != absl::string_view::npos) {
    return Bad(url, "expected http://HOST:PORT without a path, query or user");
  }
  AgentUrl out;
  absl::string_view port;
  if (absl::ConsumePrefix(&rest, "[")) {  // [IPv6]:PORT
    const size_t close = rest.find("]:");
    if (close == absl::string_view::npos) return Bad(url, "expected [IPV6]:PORT");
    out.host = std::string(rest.substr(0, close));
    port = rest.substr(close + 2);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == absl::string_view::npos) return Bad(url, "no :PORT");
    out.host = std::string(rest.substr(0, colon));
    port = rest.substr(colon + 1);
  }
  uint32_t number = 0;
  if (out.host.empty()) return Bad(url, "no host");
  if (!absl::SimpleAtoi(port, &number) || number == 0 || number > 65535) {
    return Bad(url, absl::StrCat("port \"", port, "\" is not 1..65535"));
  }
  out.port = std::string(port);
  return out;
}

}  // namespace nictune::cli
