// SPDX-License-Identifier: Apache-2.0
#include "agent/check/tracepoints.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "driver/probe_tracepoints.h"

namespace nictune::check {

absl::StatusOr<std::vector<TracepointPresence>> CheckTracepoints(
    const absl::StatusOr<std::string>& tracefs, const std::string& btf_path) {
  std::string btf;
  if (!tracefs.ok()) {
    std::ifstream file(btf_path, std::ios::binary);
    btf.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (btf.empty()) {
      return absl::NotFoundError(absl::StrCat("neither tracefs (", tracefs.status().message(),
                                              ") nor ", btf_path, " could be read"));
    }
  }
  std::vector<TracepointPresence> out;
  for (const driver::ProbeTracepoint& t : driver::kProbeTracepoints) {
    TracepointPresence presence{.name = absl::StrCat(t.group, ":", t.event),
                                .concern = std::string(t.concern),
                                .without_it = std::string(t.without_it)};
    if (tracefs.ok()) {
      struct stat st {};
      const std::string dir = absl::StrCat(*tracefs, "/events/", t.group, "/", t.event);
      presence.present = ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    } else {
      // A BTF type name sits NUL-terminated in the string section.
      presence.present =
          btf.find(absl::StrCat("btf_trace_", t.event, std::string(1, '\0'))) != std::string::npos;
    }
    out.push_back(std::move(presence));
  }
  return out;
}

}  // namespace nictune::check
