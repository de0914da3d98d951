// SPDX-License-Identifier: Apache-2.0
// The rule for requests to routes that change state (Effect::kChanges, as the route table says):
// on TCP they need a configured API token, presented as "Authorization: Bearer <token>" (the
// scheme in any case) and compared in constant time; on the root-only unix socket the file
// permissions are the authorization. Requests to routes that only read (GET, and POST
// /api/v1/whatif, which only computes) are always allowed.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/http/request.h"
#include "agent/http/router.h"

namespace nictune::http {

// Reads the token from `path`. Refuses a file that is not a regular file, that someone other than
// root or this agent's user owns (they could change the token), that group or others can read
// (the token would not be a secret), or whose token is shorter than 16 characters or
// contains whitespace. Trailing newlines are not part of the token.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

// Equality whose time does not depend on where the strings differ (only on their lengths).
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

// The 403 response that refuses `request`, or nullopt when it may proceed. effect is that of the
// route serving it (Router::EffectOf); token is the configured API token, nullopt when none is.
std::optional<Response> RefuseUnauthorized(const Request& request, Effect effect,
                                           const std::optional<std::string>& token);

}  // namespace nictune::http
