// libFuzzer target for the unix socket's HTTP/1.1 parsing: no request head or response may crash
// the parsers; an accepted head has an absolute, control-free path and bounded headers; an
// accepted response survives a write and re-parse unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "agent/http/http_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = nictune::http;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);

  const auto head = http::ParseRequestHead(input);
  if (head.ok()) {
    if (head->path.empty() || head->path[0] != '/') std::abort();
    for (const char c : head->path) {
      if (absl::ascii_iscntrl(static_cast<unsigned char>(c))) std::abort();
    }
    if (head->headers.size() > http::kMaxHeaderLines) std::abort();
  }

  const auto response = http::ParseResponse(input);
  if (response.ok()) {
    const auto again = http::ParseResponse(http::SerializeResponse(*response, true));
    if (!again.ok() || again->status != response->status || again->body != response->body ||
        again->content_type != response->content_type) {
      std::abort();
    }
  }
  return 0;
}
