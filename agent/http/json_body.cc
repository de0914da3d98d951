// SPDX-License-Identifier: Apache-2.0
#include "agent/http/json_body.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nictune::http {

absl::StatusOr<nlohmann::json> ParseJsonBody(const Request& request) {
  nlohmann::json parsed =
      nlohmann::json::parse(request.body, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(request.method, " ", request.path, ": body of ",
                                                   request.body.size(),
                                                   " bytes is not valid JSON"));
  }
  return parsed;
}

}  // namespace nictune::http
