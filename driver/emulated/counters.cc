#include "driver/emulated/counters.h"

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
  visit("flush_ns_total", counters.flush_ns_total);
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
