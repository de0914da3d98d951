// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/swept_series.h"

#include <algorithm>
#include <utility>

namespace nictune::metrics {
namespace {

// Removes the series not set since the previous sweep and clears the marks of the others.
template <typename Entries, typename Remove>
void SweepEntries(Entries& entries, Remove remove) {
  for (auto it = entries.begin(); it != entries.end();) {
    if (!it->second.seen) {
      remove(it->second);
      it = entries.erase(it);
    } else {
      it->second.seen = false;
      ++it;
    }
  }
}

}  // namespace

void CounterSeries::Set(const prometheus::Labels& labels, double total) {
  auto [it, inserted] = entries_.try_emplace(labels);
  Entry& entry = it->second;
  if (!inserted && total < entry.counter->Value()) {
    family_.Remove(entry.counter);
    entry.counter = nullptr;
  }
  if (entry.counter == nullptr) entry.counter = &family_.Add(labels);
  entry.counter->Increment(total - entry.counter->Value());
  entry.seen = true;
}

void CounterSeries::Sweep() {
  SweepEntries(entries_, [this](Entry& e) { family_.Remove(e.counter); });
}

void GaugeSeries::Set(const prometheus::Labels& labels, double value) {
  auto [it, inserted] = entries_.try_emplace(labels);
  if (inserted) it->second.gauge = &family_.Add(labels);
  it->second.gauge->Set(value);
  it->second.seen = true;
}

void GaugeSeries::Sweep() {
  SweepEntries(entries_, [this](Entry& e) { family_.Remove(e.gauge); });
}

void HistogramSeries::Set(const prometheus::Labels& labels,
                          const std::vector<double>& bucket_totals, double sum_total) {
  auto [it, inserted] = entries_.try_emplace(labels);
  Entry& entry = it->second;
  std::vector<double> totals = bucket_totals;
  totals.resize(boundaries_.size() + 1, 0.0);
  bool restarted = false;
  for (size_t i = 0; i < totals.size() && !inserted; ++i) {
    if (totals[i] < entry.bucket_totals[i]) restarted = true;
  }
  if (!inserted && restarted) {
    family_.Remove(entry.histogram);
    entry.histogram = nullptr;
  }
  if (entry.histogram == nullptr) {
    entry.histogram = &family_.Add(labels, boundaries_);
    entry.bucket_totals.assign(totals.size(), 0.0);
    entry.sum_total = 0;
  }
  std::vector<double> increments(totals.size());
  for (size_t i = 0; i < totals.size(); ++i) increments[i] = totals[i] - entry.bucket_totals[i];
  entry.histogram->ObserveMultiple(increments, std::max(0.0, sum_total - entry.sum_total));
  entry.bucket_totals = std::move(totals);
  entry.sum_total = sum_total;
  entry.seen = true;
}

void HistogramSeries::Sweep() {
  SweepEntries(entries_, [this](Entry& e) { family_.Remove(e.histogram); });
}

void CounterSums::PublishTo(CounterSeries& series) {
  for (auto it = totals_.begin(); it != totals_.end();) {
    if (publishes_ - it->second.last_added >= forget_after_) {
      totals_.erase(it++);
      continue;
    }
    series.Set(it->first, it->second.total);
    ++it;
  }
  ++publishes_;
  series.Sweep();
}

}  // namespace nictune::metrics
