// SPDX-License-Identifier: Apache-2.0
#include "agent/window_summary.h"

#include "absl/strings/str_format.h"

namespace nictune::agent {

std::string SummarizeWindow(const model::Window& w) {
  double irqs = 0;
  for (const auto& i : w.irqs) irqs += i.per_s;
  double polls = 0, work = 0;
  for (const auto& n : w.napis) {
    polls += n.polls_per_s;
    work += n.work_per_s;
  }
  double drops = 0;
  for (const auto& d : w.drops) drops += d.per_s;
  double softirq = 0;
  for (const auto& c : w.cpus) {
    if (c.split) softirq += c.split->softirq;
  }
  int sources = 0;
  for (const auto& s : w.sources) sources += s.in_use ? 1 : 0;
  return absl::StrFormat(
      "%.2fs: %.0f irqs/s, %.0f napi polls/s (%.1f pkts/poll), %.0f drops/s, softirq %.1f%% of "
      "%d cpus; %d/%d sources",
      w.seconds, irqs, polls, polls > 0 ? work / polls : 0.0, drops,
      w.cpus.empty() ? 0.0 : 100 * softirq / static_cast<double>(w.cpus.size()),
      static_cast<int>(w.cpus.size()), sources, static_cast<int>(w.sources.size()));
}

}  // namespace nictune::agent
