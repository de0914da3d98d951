// SPDX-License-Identifier: Apache-2.0
#include "agent/http/request.h"

#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::http {

Response ErrorResponse(int status, const std::string& error, const std::string& detail) {
  const nlohmann::json body{{"error", error}, {"detail", detail}};
  return Response{.status = status, .body = model::JsonText(body)};
}

}  // namespace nictune::http
