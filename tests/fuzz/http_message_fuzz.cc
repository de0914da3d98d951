// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the CLI's HTTP/1.1 response parsing: no response may crash the parser,
// and an accepted response survives a write and re-parse unchanged, extra headers included, when
// the framing headers the writer adds still leave it within the header-line limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "agent/http/http_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = nictune::http;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);

  const auto response = http::ParseResponse(input);
  if (response.ok() &&
      response->headers.size() + http::kResponseFramingHeaderLines <= http::kMaxHeaderLines) {
    const auto again = http::ParseResponse(http::SerializeResponse(*response, true));
    if (!again.ok() || again->status != response->status || again->body != response->body ||
        again->content_type != response->content_type || again->headers != response->headers) {
      std::abort();
    }
  }
  return 0;
}
