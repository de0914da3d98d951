// SPDX-License-Identifier: Apache-2.0
#include "tests/support/node_exporter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "tests/support/loopback_http.h"
#include "tests/support/netns_host.h"
#include "tests/support/ready_program.h"

namespace nictune::testing_support {

absl::StatusOr<std::string> ScrapeLoopback(uint16_t port, const std::string& network_namespace) {
  absl::StatusOr<HttpReply> reply = absl::InternalError("not asked");
  const auto get = [&] { reply = HttpGetLoopback(port, "/metrics", absl::Seconds(5)); };
  if (network_namespace.empty()) {
    get();
  } else if (absl::Status ran = RunInNamedNamespace(network_namespace, get); !ran.ok()) {
    return ran;
  }
  if (!reply.ok()) return reply.status();
  if (reply->status != 200) {
    return absl::UnavailableError(absl::StrCat("GET http://127.0.0.1:", port, "/metrics: HTTP ",
                                               reply->status, ": ", reply->body.substr(0, 200)));
  }
  return std::move(reply->body);
}

absl::StatusOr<BackgroundProgram> StartNodeExporter(const NodeExporterOptions& options,
                                                    absl::Duration timeout) {
  std::vector<std::string> argv;
  if (!options.network_namespace.empty()) {
    argv = {"ip", "netns", "exec", options.network_namespace};
  }
  argv.push_back(kNodeExporterBinary);
  argv.push_back(absl::StrCat("--web.listen-address=127.0.0.1:", options.port));
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  return StartWhenReady(
      argv,
      [&options]() -> absl::Status {
        return ScrapeLoopback(options.port, options.network_namespace).status();
      },
      timeout, absl::Milliseconds(50));
}

}  // namespace nictune::testing_support
