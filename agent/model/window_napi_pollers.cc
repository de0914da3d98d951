// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "agent/model/window_parts.h"

namespace nictune::model::internal {

// A poller read at both ends, by pid and device (a poller the watch list moved to another device
// is another one): a pid whose task exited and was given to another between the readings shows
// less time, and says nothing of the window.
void AddNapiPollers(const Snapshot& before, const Snapshot& after, double seconds, Window& out) {
  if (!(seconds > 0)) return;
  for (const NapiPollerTime& b : after.napi_pollers) {
    const auto a = std::find_if(
        before.napi_pollers.begin(), before.napi_pollers.end(), [&](const NapiPollerTime& t) {
          return t.poller.pid == b.poller.pid && t.poller.device == b.poller.device;
        });
    if (a == before.napi_pollers.end() || b.run_ns < a->run_ns) continue;
    out.napi_pollers.push_back(
        NapiPollerWindow{.poller = b.poller,
                         .cpu_share = static_cast<double>(b.run_ns - a->run_ns) / 1e9 / seconds});
  }
}

}  // namespace nictune::model::internal
