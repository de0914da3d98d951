// SPDX-License-Identifier: Apache-2.0
// Debian's prometheus-node-exporter (installed by deploy/bootstrap.sh), started by a test or a
// bench on a private loopback port, optionally inside a test's network namespace, and waited for
// until /metrics answers. Killed when the returned program goes away.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/subprocess.h"

namespace nictune::testing_support {

inline constexpr char kNodeExporterBinary[] = "/usr/bin/prometheus-node-exporter";

// The systemd collector, on in Debian's build, needs systemd's D-Bus socket; without it every
// scrape logs an error, so runs where systemd is not PID 1 (containers, CI) leave it out.
inline constexpr char kNoSystemdCollector[] = "--no-collector.systemd";

struct NodeExporterOptions {
  uint16_t port = 0;               // listens on 127.0.0.1:<port> (in network_namespace)
  std::string network_namespace;   // empty: this process's; else /run/netns/<name>
  std::vector<std::string> flags;  // collector flags, e.g. --collector.interrupts
};

// Starts it and waits up to `timeout` for GET /metrics to answer 200; fails with its stderr
// when it exits first or does not answer in time.
absl::StatusOr<BackgroundProgram> StartNodeExporter(const NodeExporterOptions& options,
                                                    absl::Duration timeout);

// GET /metrics from a node_exporter (or any exporter) on 127.0.0.1:<port> of `network_namespace`
// (empty: this thread's): the body of a 200 reply.
absl::StatusOr<std::string> ScrapeLoopback(uint16_t port, const std::string& network_namespace);

}  // namespace nictune::testing_support
