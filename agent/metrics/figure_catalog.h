// SPDX-License-Identifier: Apache-2.0
// The figure catalog: every family nictuned exports on /metrics, a row each, with its name, kind,
// unit, help and labels, what bounds each label's values, and where the window JSON has the same
// figure. The exporter registers its families from the rows (families.h), the series budget is
// computed from them (series_budget.h), and tests hold the rows, the live exposition,
// dashboards/metrics.txt and the window JSON equal. A new figure is its probe or reader, and one
// row here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/metrics/knob_value_unit.h"
#include "driver/probe_source.h"
#include "tuner/knob.h"

namespace nictune::metrics {

enum class FigureKind { kCounter, kGauge, kHistogram };

// "counter", "gauge", "histogram": the exposition's # TYPE word.
std::string_view KindName(FigureKind kind);

// What bounds the values a label takes: a term of the host's shape (series_budget.h HostShape),
// an option, or a set the code fixes. A family's series are the product over its labels.
enum class LabelBound {
  kFixedSet,                   // `fixed_values` values the code fixes (vectors, modes, hooks)
  kFollows,                    // one value per value of an earlier label (an irq's handlers)
  kCpusIfPerCpu,               // each CPU with --metrics_per_cpu, else absent
  kCpusIfInterruptsPerCpu,     // each CPU with --metrics_interrupts_per_cpu, else absent
  kIrqs,                       // numbered irq lines that fired
  kDevices,                    // the agent's own namespace's devices
  kDevicesAndOtherNamespaces,  // those, and every other namespace's devices as one
  kNapis,                      // own namespace's NAPI instances that polled, the others' as one
  // Threaded NAPI pollers: one per own NAPI instance at most, each --emulated_nic's as one, and
  // every other namespace's as one.
  kNapiPollers,
  kTopSockets,   // --metrics_top_sockets
  kDropReasons,  // drop reasons seen: at most the kernel's enum skb_drop_reason
  // With the reason: a protocol on an own device, none or other_namespaces, the map-full drops
  // and those only the kernel counted (label_values.h DropLabels).
  kDropAttributions,
  // A device knob on a device or NAPI instance, or a host knob; of FigureLabel::knob_unit's
  // knobs alone when it is set.
  kKnobTargets,
  kEmulatedNics,  // --emulated_nic
};

// A bound on a family's series beside its labels' product: the family has at most the product,
// and at most the cap.
enum class SeriesCap {
  kNone,
  kMaxDropSeries,  // SeriesOptions::max_drop_series label sets and the overflow series
};

struct FigureLabel {
  std::string name;
  LabelBound bound = LabelBound::kFollows;
  size_t fixed_values = 0;  // kFixedSet's count
  std::optional<KnobValueUnit> knob_unit;  // kKnobTargets of the knobs of this unit
};

struct Figure {
  std::string name;
  FigureKind kind = FigureKind::kGauge;
  // What the value counts or measures, as the name's suffix says it ("seconds", "bytes",
  // "packets", "ratio"); empty for a count of events or a state.
  std::string unit;
  std::string help;
  std::vector<FigureLabel> labels;
  std::vector<double> boundaries;  // a histogram's buckets, without +Inf
  SeriesCap cap = SeriesCap::kNone;
  // Where an interval's window (GET /api/v1/snapshot, agent/model/window_json.cc) carries the
  // same figure: a JSON Pointer in which `*` stands for any element or key. A counter's is its
  // rate, count or share over the window; a gauge's its value. Empty: the agent's own, the
  // tuner's and the actuator's figures, which other endpoints carry.
  std::string json;
  // The probe budget's hook whose programs give the figure: its share of the window seen is
  // nictune_probe_coverage_ratio{hook="..."}, which the help names. Empty for a figure of the
  // kernel's own counters, whole whatever the budget does.
  std::string hook;
};

// Set sizes the code fixes, not the host.
inline constexpr size_t kSoftirqVectors = 10;     // HI ... RCU
inline constexpr size_t kDropProtocols = 10;      // ProtocolName's values, "" and "other" included
inline constexpr size_t kProbeHooks = std::size(driver::kProbeHookNames);
inline constexpr size_t kBpfMaps = 7;             // the probes' hash maps, with map pressure
inline constexpr size_t kBpfPrograms = 24;        // handlers of every concern, loaded
inline constexpr size_t kSources = 24;            // procfs, sysfs, netlink and bpf sources
inline constexpr size_t kKnobs = std::size(tuner::kAllKnobs);
inline constexpr size_t kChangeResults = 4;       // applied, kept, rolled_back, failed

// Every row, in name order.
const std::vector<Figure>& FigureCatalog();

// The row of the family `name`; nullptr for a name the catalog does not hold.
const Figure* FindFigure(std::string_view name);

}  // namespace nictune::metrics
