// SPDX-License-Identifier: Apache-2.0
// Parsing a request body as JSON without exceptions: a malformed body is a value, which handlers
// turn into 400.
#pragma once

#include "absl/status/statusor.h"
#include "agent/http/request.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

// Fails with InvalidArgument naming the request when the body is not one JSON value.
absl::StatusOr<nlohmann::json> ParseJsonBody(const Request& request);

}  // namespace nictune::http
