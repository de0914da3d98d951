// SPDX-License-Identifier: Apache-2.0
// The client side of one HTTP exchange on a connected stream socket, shared by the CLI's unix
// socket and TCP clients: send the whole request, read the response until the server closes (it
// answers with Connection: close), all within one deadline. `where` ("unix socket PATH",
// "http://HOST:PORT") leads every error message.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/http/request.h"

namespace nictune::http {

// Responses larger than this are refused rather than buffered without bound.
inline constexpr size_t kMaxClientResponseBytes = 64 << 20;

// "WHERE: OPERATION: strerror (errno N)" with the errno's status code.
absl::Status SocketError(absl::string_view where, absl::string_view operation, int error);

// poll() until fd is ready for `events` or the deadline passes (ETIMEDOUT).
absl::Status WaitForSocket(int fd, short events, absl::Time deadline, absl::string_view where,
                           absl::string_view operation);

// Sends `request` (as SerializeRequest writes it) on the connected fd and parses what comes back
// until the server closes. A server that answers early (403, 413) and closes before reading the
// whole request still has its answer read. DataLoss when the answer is not an HTTP response,
// ResourceExhausted beyond kMaxClientResponseBytes.
absl::StatusOr<Response> ExchangeOnSocket(int fd, absl::string_view request, absl::Time deadline,
                                          absl::string_view where);

}  // namespace nictune::http
