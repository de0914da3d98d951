// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/series_budget.h"

#include <initializer_list>
#include <iterator>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/protocol_counters.h"
#include "agent/metrics/series_shapes.h"
#include "driver/link_statistics.h"

namespace nictune::metrics {
namespace {

// Buckets of the histograms: their boundaries and +Inf.
const size_t kNapiWorkBuckets = kNapiWorkBoundaries.size() + 1;
const size_t kTruesizeBuckets = TruesizeBoundaries().size() + 1;

class Budget {
 public:
  void Add(const std::string& family, size_t series) {
    budget_.per_family[family] += series;
    budget_.total += series;
  }
  void AddEach(std::initializer_list<const char*> families, size_t series) {
    for (const char* family : families) Add(family, series);
  }
  void AddHistogram(const std::string& family, size_t series, size_t buckets) {
    Add(family + "_bucket", series * buckets);
    Add(family + "_sum", series);
    Add(family + "_count", series);
  }
  SeriesBudget Take() { return std::move(budget_); }

 private:
  SeriesBudget budget_;
};

// CPUs that per-CPU families have a series for: each, or one sum.
size_t CpuSeries(const HostShape& shape, const SeriesOptions& options) {
  return options.per_cpu ? shape.cpus : 1;
}

void AddProcfs(const HostShape& shape, const SeriesOptions& options, Budget& out) {
  const size_t irq_series = options.interrupts_per_cpu ? shape.irqs * shape.cpus : shape.irqs;
  out.Add(metrics::family::kInterruptsTotal, irq_series);
  out.Add(metrics::family::kCpuSecondsTotal, std::size(kCpuModes) * CpuSeries(shape, options));
  out.Add(metrics::family::kSoftirqsTotal, kSoftirqVectors * CpuSeries(shape, options));
  out.AddEach(
      {metrics::family::kSoftnetProcessedTotal, metrics::family::kSoftnetDroppedTotal,
       metrics::family::kSoftnetTimesSqueezedTotal, metrics::family::kSoftnetReceivedRpsTotal,
       metrics::family::kSoftnetFlowLimitCountTotal, metrics::family::kSoftnetBacklogPackets},
      CpuSeries(shape, options));
  for (const ProtocolCounterName& counter : kProtocolCounters) {
    out.Add(ProtocolCounterMetric(counter), 1);
  }
  out.Add("nictune_network_*", driver::kLinkStatisticCount * shape.devices);
}

void AddProbes(const HostShape& shape, const SeriesOptions& options, Budget& out) {
  const size_t irq_series = options.interrupts_per_cpu ? shape.irqs * shape.cpus : shape.irqs;
  out.AddEach({metrics::family::kIrqHandlerCallsTotal, metrics::family::kIrqHandlerSecondsTotal},
              irq_series);
  out.Add(metrics::family::kHardirqSecondsTotal, CpuSeries(shape, options));
  out.AddEach({metrics::family::kSoftirqSecondsTotal, metrics::family::kSoftirqRaisedTotal},
              kSoftirqVectors * CpuSeries(shape, options));
  out.Add(metrics::family::kSoftirqUntimedSecondsTotal, 1);
  out.AddEach({metrics::family::kNapiPollsTotal, metrics::family::kNapiPacketsTotal,
               metrics::family::kNapiBudgetExhaustedTotal, metrics::family::kNapiTxCompletionsTotal,
               metrics::family::kNapiBudgetPackets},
              shape.napis);
  out.AddHistogram(metrics::family::kNapiPollWorkPackets, shape.napis, kNapiWorkBuckets);
  // Own devices, none, and every other namespace's as one; drops that found the map full by
  // reason alone.
  out.Add(metrics::family::kSkbDropsTotal,
          shape.drop_reasons * (kDropProtocols * (shape.devices + 2) + 1));
  out.AddEach(
      {metrics::family::kSocketEnqueuesTotal, metrics::family::kSocketRcvqueueFullTotal,
       metrics::family::kSocketUdpQueueFailuresTotal, metrics::family::kSocketReceiveBufferBytes,
       metrics::family::kSocketReceiveBufferPeakFillRatio,
       metrics::family::kSocketTruesizeMeanBytes, metrics::family::kSocketDropsTotal,
       metrics::family::kSocketReceiveQueueBytes},
      options.max_sockets);
  out.AddHistogram(metrics::family::kRxTruesizeBytes, shape.devices + 1, kTruesizeBuckets);
  out.AddEach({metrics::family::kProbeBudgetCpuRatio, metrics::family::kProbePlannedCpuRatio,
               metrics::family::kProbeOverBudget, metrics::family::kProbeCalibrationsTotal},
              1);
  out.AddEach({metrics::family::kProbeCoverageRatio, metrics::family::kProbeAttachedSecondsTotal,
               metrics::family::kProbeEventsTotal, metrics::family::kProbeCostSecondsPerEvent,
               metrics::family::kProbeSlotsTotal, metrics::family::kProbeLinkCpuSecondsTotal},
              kProbeHooks);
  out.AddEach({metrics::family::kBpfMapEntries, metrics::family::kBpfMapCapacityEntries,
               metrics::family::kBpfMapNoRoomTotal, metrics::family::kBpfMapPrunedKeysTotal},
              kBpfMaps);
  out.AddEach({metrics::family::kBpfProgramRunsTotal, metrics::family::kBpfProgramRunSecondsTotal},
              kBpfPrograms);
}

void AddAgent(const HostShape& shape, Budget& out) {
  out.AddEach(
      {metrics::family::kBuildInfo, metrics::family::kProcessCpuSecondsTotal,
       metrics::family::kProcessResidentMemoryBytes, metrics::family::kProcessVirtualMemoryBytes,
       metrics::family::kProcessOpenFds, metrics::family::kProcessMaxFds,
       metrics::family::kProcessStartTimeSeconds, metrics::family::kSamplingDurationSeconds,
       metrics::family::kSamplesTotal, metrics::family::kSampleFailuresTotal,
       metrics::family::kMissedIntervalsTotal, metrics::family::kTunerWindowsTotal,
       metrics::family::kStoreErrorsTotal, metrics::family::kStoreHealthy,
       metrics::family::kRecommendations, metrics::family::kSamplingIntervalSeconds},
      1);
  out.Add(metrics::family::kSourceUp, kSources);
  out.AddEach({metrics::family::kEmulatedNicInterruptsTotal,
               metrics::family::kEmulatedNicDeliveredPacketsTotal,
               metrics::family::kEmulatedNicMissedPacketsTotal},
              shape.emulated_nics);
  const size_t knob_targets = kDeviceKnobs * (shape.devices + shape.napis) + kHostKnobs;
  out.AddEach({metrics::family::kRecommendedValue, metrics::family::kCurrentValue}, knob_targets);
  out.Add(metrics::family::kKnobMode, kKnobModes * knob_targets);
  out.Add(metrics::family::kChangesTotal, kKnobs * kChangeResults);
}

}  // namespace

size_t SeriesBudget::Of(const std::string& sample_name) const {
  if (const auto it = per_family.find(sample_name); it != per_family.end()) return it->second;
  if (absl::StartsWith(sample_name, "nictune_network_")) {
    return per_family.at("nictune_network_*") / driver::kLinkStatisticCount;
  }
  return 0;
}

SeriesBudget BudgetFor(const HostShape& shape, const SeriesOptions& options) {
  Budget out;
  AddProcfs(shape, options, out);
  AddProbes(shape, options, out);
  AddAgent(shape, out);
  return out.Take();
}

}  // namespace nictune::metrics
