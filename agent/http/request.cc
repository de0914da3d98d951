#include "agent/http/request.h"

#include "nlohmann/json.hpp"

namespace nictune::http {

Response ErrorResponse(int status, const std::string& error, const std::string& detail) {
  const nlohmann::json body{{"error", error}, {"detail", detail}};
  // Replacing invalid UTF-8 instead of throwing: detail may quote what a client sent.
  return Response{.status = status,
                  .body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace nictune::http
