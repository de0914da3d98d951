// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/device_ring.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/cli/json_text.h"

namespace nictune::cli {

absl::StatusOr<int64_t> RxRingSize(const nlohmann::json& snapshot, const std::string& device) {
  const auto settings = snapshot.find("settings");
  if (settings != snapshot.end() && settings->is_array()) {
    for (const nlohmann::json& s : *settings) {
      if (!s.is_object() || TextAt(s, "device") != device) continue;
      const nlohmann::json rings = s.contains("rings") ? s["rings"] : nlohmann::json::object();
      if (const std::optional<double> rx = NumberAt(rings, "rx"); rx && *rx >= 1 && *rx < 1e9) {
        return static_cast<int64_t>(*rx);
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "the agent reads no rx ring size for ", device,
          rings.contains("error") ? absl::StrCat(": ", TextAt(rings, "error")) : std::string(),
          "; pass --ring_size"));
    }
  }
  return absl::NotFoundError(
      absl::StrCat("the agent's snapshot has no device ", device, "; pass --ring_size"));
}

}  // namespace nictune::cli
