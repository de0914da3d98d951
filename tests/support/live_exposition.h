// SPDX-License-Identifier: Apache-2.0
// What a live agent exports after a window of traffic: real /proc, the BPF probes attached (the
// per-packet ones too, for the socket series), a flow run between two collections and that window
// published with this process's own cost. The tests of the exposition (its families, promtool's
// verdict) share this setup so that they judge the same output.
#pragma once

#include "absl/status/status.h"
#include "agent/metrics/exporter.h"
#include "tests/support/udp_flow.h"

namespace nictune::testing_support {

// Runs `flow` inside one collection window and publishes the window into `exporter`; errors name
// the step that failed (probes, flow, window, process usage).
absl::Status ExportWindowOfFlow(UdpFlow& flow, metrics::MetricsExporter& exporter);

}  // namespace nictune::testing_support
