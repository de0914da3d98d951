// SPDX-License-Identifier: Apache-2.0
// The series budget (docs/metrics.md "Series budget"): how many series nictuned exports at most,
// family by family, from the shape of the host alone: each family of the figure catalog
// (figure_catalog.h) has the product of its labels' bounds, within its cap. No port, network
// namespace, socket count beyond the top ones, amount of traffic or uptime enters it: drops are
// series per reason, protocol and own device, at most --metrics_drop_series of them and one
// overflow; the devices of every other namespace are one device; per-socket series are the top
// sockets'; per-CPU interrupt series are opt-in. The store keeps the same series.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "agent/metrics/figure_catalog.h"
#include "agent/metrics/series_options.h"

namespace nictune::metrics {

struct HostShape {
  size_t cpus = 0;          // possible CPUs
  size_t irqs = 0;          // numbered irq lines that have fired (/proc/interrupts)
  size_t devices = 0;       // network devices in the agent's own namespace
  // NAPI instances of the agent's own namespace that polled (NIC queues, the backlog); every
  // other namespace's are one series.
  size_t napis = 0;
  size_t drop_reasons = 0;  // drop reasons seen; at most the kernel's enum skb_drop_reason
  size_t emulated_nics = 0;
};

struct SeriesBudget {
  std::map<std::string, size_t> per_family;  // by sample name: a histogram's _bucket, _sum, _count
  size_t total = 0;
  // The budget of a sample name; 0 for a name the catalog does not hold.
  size_t Of(const std::string& sample_name) const;
};

SeriesBudget BudgetFor(const HostShape& shape, const SeriesOptions& options);

}  // namespace nictune::metrics
