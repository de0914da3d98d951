// SPDX-License-Identifier: Apache-2.0
// Prometheus families whose series follow what the last sample saw. Each update Sets the series it
// saw; Sweep() then removes every series that was not set, so an irq, device or socket that
// vanished stops being exported instead of repeating its last value forever.
#pragma once

#include <unordered_map>
#include <vector>

#include "absl/hash/hash.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/labels.h"

namespace nictune::metrics {

// Series by their labels in a hash map: an update Sets every series, and an ordered map's lookups
// (a dozen label-set comparisons each) made that grow faster than the series count (256 CPUs).
template <typename Entry>
using SeriesEntries = std::unordered_map<prometheus::Labels, Entry, absl::Hash<prometheus::Labels>>;

// Counters set from cumulative totals (the kernel's own counters). A total below the exported
// value means the source restarted (device re-created, probes reloaded): the series is re-created
// so that Prometheus sees a counter reset, never a counter going down.
class CounterSeries {
 public:
  explicit CounterSeries(prometheus::Family<prometheus::Counter>& family) : family_(family) {}
  CounterSeries(const CounterSeries&) = delete;
  CounterSeries& operator=(const CounterSeries&) = delete;

  void Set(const prometheus::Labels& labels, double total);
  void Sweep();

 private:
  struct Entry {
    prometheus::Counter* counter = nullptr;
    bool seen = false;
  };
  prometheus::Family<prometheus::Counter>& family_;
  SeriesEntries<Entry> entries_;
};

class GaugeSeries {
 public:
  explicit GaugeSeries(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}
  GaugeSeries(const GaugeSeries&) = delete;
  GaugeSeries& operator=(const GaugeSeries&) = delete;

  void Set(const prometheus::Labels& labels, double value);
  void Sweep();

 private:
  struct Entry {
    prometheus::Gauge* gauge = nullptr;
    bool seen = false;
  };
  prometheus::Family<prometheus::Gauge>& family_;
  SeriesEntries<Entry> entries_;
};

// Histograms set from cumulative per-bucket counts (not cumulative across buckets): one count per
// boundary plus one for +Inf, and the cumulative sum of the observed values.
class HistogramSeries {
 public:
  HistogramSeries(prometheus::Family<prometheus::Histogram>& family, std::vector<double> boundaries)
      : family_(family), boundaries_(std::move(boundaries)) {}
  HistogramSeries(const HistogramSeries&) = delete;
  HistogramSeries& operator=(const HistogramSeries&) = delete;

  const std::vector<double>& boundaries() const { return boundaries_; }
  void Set(const prometheus::Labels& labels, const std::vector<double>& bucket_totals,
           double sum_total);
  void Sweep();

 private:
  struct Entry {
    prometheus::Histogram* histogram = nullptr;
    std::vector<double> bucket_totals;
    double sum_total = 0;
    bool seen = false;
  };
  prometheus::Family<prometheus::Histogram>& family_;
  std::vector<double> boundaries_;
  SeriesEntries<Entry> entries_;
};

// Sums of cumulative totals per label set: several raw kernel keys (drop keys that differ only by
// socket, per-CPU backlog NAPIs) can map to one exported series. Kept across updates (the windows'
// figures added up), a sum nothing was added to for `forget_after` publishes is forgotten, and its
// series goes: NAPIs and devices come and go with containers, and must not pile up (Prometheus
// reads a series that comes back from zero as a counter reset).
class CounterSums {
 public:
  static constexpr uint64_t kForgetAfterPublishes = 600;  // ten minutes at the default interval

  explicit CounterSums(uint64_t forget_after = kForgetAfterPublishes)
      : forget_after_(forget_after) {}
  void Add(const prometheus::Labels& labels, double total) {
    Entry& entry = totals_[labels];
    entry.total += total;
    entry.last_added = publishes_;
  }
  bool Contains(const prometheus::Labels& labels) const { return totals_.contains(labels); }
  // Sets every summed series and sweeps the rest, forgetting sums idle for forget_after publishes.
  void PublishTo(CounterSeries& series);

 private:
  struct Entry {
    double total = 0;
    uint64_t last_added = 0;  // the publish count when it was last added to
  };
  SeriesEntries<Entry> totals_;
  uint64_t publishes_ = 0;
  uint64_t forget_after_;
};

}  // namespace nictune::metrics
