// libFuzzer target for the POST /api/v1/whatif body parser: no input may crash it, and every
// accepted body must hold values inside the ranges the parser promises (whatif_request.h).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "agent/http/whatif_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = nictune::http;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const auto request = http::ParseWhatifRequest(input);
  if (!request.ok()) return 0;
  const bool within_limits =
      std::isfinite(request->rate_pps) && request->rate_pps > 0 &&
      request->rate_pps <= http::kMaxWhatifRatePps && request->truesize_bytes >= 1 &&
      request->truesize_bytes <= http::kMaxWhatifTruesizeBytes && request->rcvbuf_bytes >= 1 &&
      request->rcvbuf_bytes <= http::kMaxWhatifRcvbufBytes && request->drain_gap_us >= 0 &&
      request->drain_gap_us <= http::kMaxWhatifDrainGapUs && std::isfinite(request->margin) &&
      request->margin >= 0 && request->margin <= http::kMaxWhatifMargin &&
      (!request->rx_usecs ||
       (*request->rx_usecs >= 0 && *request->rx_usecs <= http::kMaxWhatifRxUsecs));
  if (!within_limits) std::abort();
  return 0;
}
