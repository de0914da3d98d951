// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/counters.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace nictune::driver::emulated {
namespace {

// One table drives both directions so that a new counter cannot be formatted but not parsed.
template <typename Visitor>
void VisitFields(EmulatedNicCounters& counters, Visitor&& visit) {
  visit("generated", counters.generated);
  visit("delivered", counters.delivered);
  visit("missed", counters.missed);
  visit("tap_errors", counters.tap_errors);
  visit("interrupts", counters.interrupts);
  visit("pending", counters.pending);
  visit("rx_usecs", counters.rx_usecs);
  visit("rx_frames", counters.rx_frames);
  visit("adaptive_rx", counters.adaptive_rx);
  visit("ring_size", counters.ring_size);
  visit("interval_ns", counters.interval_ns);
  visit("frame_threshold", counters.frame_threshold);
  visit("adaptive_changes", counters.adaptive_changes);
  visit("elapsed_ns", counters.elapsed_ns);
  visit("late_ns_total", counters.late_ns_total);
  visit("late_ns_max", counters.late_ns_max);
  visit("stalls", counters.stalls);
  visit("stall_late_ns_total", counters.stall_late_ns_total);
  visit("flush_ns_total", counters.flush_ns_total);
  visit("queues", counters.queues);
  visit("napi_thread", counters.napi_thread);
}

}  // namespace

std::string FormatCounters(const EmulatedNicCounters& counters) {
  EmulatedNicCounters copy = counters;
  std::vector<std::string> pairs;
  VisitFields(copy, [&](absl::string_view name, auto& value) {
    pairs.push_back(absl::StrCat(name, "=", value));
  });
  return absl::StrJoin(pairs, " ");
}

EmulatedNicCounters SumQueueCounters(const std::vector<EmulatedNicCounters>& queues) {
  EmulatedNicCounters sum = queues.front();
  for (size_t queue = 1; queue < queues.size(); ++queue) {
    const EmulatedNicCounters& q = queues[queue];
    sum.generated += q.generated;
    sum.delivered += q.delivered;
    sum.missed += q.missed;
    sum.tap_errors += q.tap_errors;
    sum.interrupts += q.interrupts;
    sum.pending += q.pending;
    sum.adaptive_changes += q.adaptive_changes;
    sum.late_ns_total += q.late_ns_total;
    sum.late_ns_max = std::max(sum.late_ns_max, q.late_ns_max);
    sum.stalls += q.stalls;
    sum.stall_late_ns_total += q.stall_late_ns_total;
    sum.flush_ns_total += q.flush_ns_total;
  }
  sum.queues = queues.size();
  sum.napi_thread = 0;
  return sum;
}

absl::StatusOr<EmulatedNicCounters> ParseCounters(absl::string_view text) {
  absl::flat_hash_map<std::string, absl::string_view> values;
  for (absl::string_view pair : absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    const size_t equals = pair.find('=');
    if (equals == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("emulated NIC counters: '", pair, "' is not name=value"));
    }
    values[std::string(pair.substr(0, equals))] = pair.substr(equals + 1);
  }
  EmulatedNicCounters counters;
  absl::Status status;
  VisitFields(counters, [&](absl::string_view name, auto& value) {
    if (!status.ok()) return;
    const auto found = values.find(name);
    if (found == values.end()) {
      status = absl::InvalidArgumentError(
          absl::StrCat("emulated NIC counters: '", name, "' missing in '", text, "'"));
    } else if (!absl::SimpleAtoi(found->second, &value)) {
      status = absl::InvalidArgumentError(absl::StrCat("emulated NIC counters: ", name, "='",
                                                       found->second, "' is not an integer"));
    }
  });
  if (!status.ok()) return status;
  return counters;
}

}  // namespace nictune::driver::emulated
