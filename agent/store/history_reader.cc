// SPDX-License-Identifier: Apache-2.0
#include "agent/store/history_reader.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "absl/strings/str_format.h"
#include "agent/store/sample_stamps.h"
#include "agent/store/series_labels.h"
#include "agent/store/weighted_mean.h"

namespace nictune::store {
namespace {

struct MatchedSeries {
  int64_t id = 0;
  Labels labels;
};

absl::StatusOr<std::vector<MatchedSeries>> FindSeries(Connection& connection,
                                                      const HistoryQuery& query) {
  absl::StatusOr<Statement> select = connection.Prepare(
      "SELECT id, labels FROM series WHERE name = ?1 ORDER BY id", "query history: find series");
  if (!select.ok()) return select.status();
  select->BindText(1, query.series);
  std::vector<MatchedSeries> matched;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<Labels> labels = DecodeLabels(select->ColumnText(1));
    if (!labels.ok()) return labels.status();
    if (LabelsMatch(*labels, query.match)) {
      matched.push_back({select->ColumnInt64(0), std::move(*labels)});
    }
  }
  return matched;
}

// Index into `resolutions`, or nullopt when no resolution holds any row.
absl::StatusOr<std::optional<size_t>> ChooseResolution(Connection& connection,
                                                       const std::vector<Resolution>& resolutions,
                                                       int64_t since_ms, int64_t until_ms,
                                                       int64_t step_ms) {
  std::vector<std::optional<int64_t>> oldest;
  // When the oldest data begins, at the latest: a downsampled row is stamped with the start of
  // its bucket, which can lie before the first raw sample it averages, so each resolution bounds
  // it by the end of its first bucket. A young store's coarse buckets then do not make its raw
  // samples look too short to cover the range.
  std::optional<int64_t> data_begins_by;
  for (const Resolution& resolution : resolutions) {
    const int64_t resolution_ms = absl::ToInt64Milliseconds(resolution.step);
    absl::StatusOr<std::optional<int64_t>> first =
        FirstStampFrom(connection, resolution_ms, std::numeric_limits<int64_t>::min());
    if (!first.ok()) return first.status();
    oldest.push_back(*first);
    if (first->has_value() && (!data_begins_by || **first + resolution_ms < *data_begins_by)) {
      data_begins_by = **first + resolution_ms;
    }
  }
  if (!data_begins_by) return std::optional<size_t>();
  // A resolution covers the range when it reaches back to `since`, or as far as any data goes.
  const int64_t wanted_from = std::max(since_ms, *data_begins_by);
  std::optional<size_t> finest_covering;
  std::optional<size_t> chosen;
  for (size_t i = 0; i < resolutions.size(); ++i) {
    const int64_t resolution_ms = absl::ToInt64Milliseconds(resolutions[i].step);
    if (!oldest[i] || *oldest[i] > wanted_from + resolution_ms) continue;
    if (!finest_covering) finest_covering = i;
    const bool fine_enough = resolution_ms <= step_ms;
    const bool few_enough_points = (until_ms - since_ms) / resolution_ms <= kMaxPointsPerSeries;
    // With no step asked for, the finest resolution that keeps the answer within bounds.
    if (step_ms == 0 ? few_enough_points && !chosen : fine_enough) chosen = i;
  }
  if (chosen) return chosen;
  if (step_ms == 0) {
    // Even the coarsest covering resolution gives too many points: take it, the bound check
    // below reports the problem.
    for (size_t i = resolutions.size(); i-- > 0;) {
      if (oldest[i] && *oldest[i] <= wanted_from + absl::ToInt64Milliseconds(resolutions[i].step)) {
        return std::optional<size_t>(i);
      }
    }
  }
  return finest_covering;
}

}  // namespace

absl::StatusOr<HistoryResult> ReadHistory(Connection& connection,
                                          const std::vector<Resolution>& resolutions,
                                          const HistoryQuery& query) {
  if (query.until <= query.since) {
    return absl::InvalidArgumentError(
        absl::StrFormat("query history of %s: until %s is not after since %s", query.series,
                        absl::FormatTime(query.until), absl::FormatTime(query.since)));
  }
  if (query.step < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "query history of %s: negative step %s", query.series, absl::FormatDuration(query.step)));
  }
  const int64_t since_ms = absl::ToUnixMillis(query.since);
  const int64_t until_ms = absl::ToUnixMillis(query.until);
  const int64_t step_ms = absl::ToInt64Milliseconds(query.step);

  HistoryResult result;
  result.resolution = resolutions.front().step;
  absl::StatusOr<std::vector<MatchedSeries>> matched = FindSeries(connection, query);
  if (!matched.ok()) return matched.status();
  if (matched->empty()) return result;

  absl::StatusOr<std::optional<size_t>> chosen =
      ChooseResolution(connection, resolutions, since_ms, until_ms, step_ms);
  if (!chosen.ok()) return chosen.status();
  if (chosen->has_value()) result.resolution = resolutions[**chosen].step;
  const int64_t resolution_ms = absl::ToInt64Milliseconds(result.resolution);
  const int64_t output_step_ms = std::max(step_ms, resolution_ms);
  const int64_t points = (until_ms - since_ms) / output_step_ms + 1;
  if (points > kMaxPointsPerSeries) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "query history of %s: %d points per series at step %s exceed the limit %d: raise step "
        "or narrow the range",
        query.series, points, absl::FormatDuration(absl::Milliseconds(output_step_ms)),
        kMaxPointsPerSeries));
  }

  std::vector<int64_t> stamps;
  if (chosen->has_value()) {
    bool truncated = false;
    // A resolution may hold more timestamps than its step suggests (appends faster than the
    // nominal interval), so the scan has its own bound.
    absl::StatusOr<std::vector<int64_t>> found =
        DistinctStamps(connection, resolution_ms, since_ms, until_ms + 1,
                       static_cast<size_t>(kMaxPointsPerSeries) * 4, truncated);
    if (!found.ok()) return found.status();
    if (truncated || static_cast<int64_t>(found->size() * matched->size()) > kMaxRowLookups) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "query history of %s: %d series over %s at %s resolution is too large an answer: "
          "narrow the labels or the range",
          query.series, matched->size(), absl::FormatDuration(query.until - query.since),
          absl::FormatDuration(result.resolution)));
    }
    stamps = std::move(*found);
  }

  absl::StatusOr<Statement> lookup = connection.Prepare(
      "SELECT value, count FROM samples WHERE step_ms = ?1 AND ts = ?2 AND series_id = ?3",
      "query history: read samples");
  if (!lookup.ok()) return lookup.status();
  for (const MatchedSeries& series : *matched) {
    std::map<int64_t, WeightedMean> buckets;
    for (int64_t stamp : stamps) {
      lookup->Reset();
      lookup->BindInt64(1, resolution_ms);
      lookup->BindInt64(2, stamp);
      lookup->BindInt64(3, series.id);
      absl::StatusOr<bool> row = lookup->Step();
      if (!row.ok()) return row.status();
      if (!*row) continue;
      // Coarser steps than the stored one are means weighted by how many raw samples each row is.
      const int64_t bucket =
          step_ms > resolution_ms ? stamp - (((stamp % step_ms) + step_ms) % step_ms) : stamp;
      const int64_t count = lookup->ColumnInt64(1);
      WeightedMean& mean = buckets[bucket];
      mean.weighted_sum += lookup->ColumnDouble(0) * static_cast<double>(count);
      mean.count += count;
    }
    SeriesHistory history{.name = query.series, .labels = series.labels};
    for (const auto& [bucket, mean] : buckets) {
      if (mean.count == 0) continue;
      history.points.push_back(
          {absl::FromUnixMillis(bucket), mean.weighted_sum / static_cast<double>(mean.count)});
    }
    result.series.push_back(std::move(history));
  }
  return result;
}

absl::StatusOr<std::vector<std::string>> ReadSeriesNames(Connection& connection) {
  absl::StatusOr<Statement> select =
      connection.Prepare("SELECT DISTINCT name FROM series ORDER BY name", "list series names");
  if (!select.ok()) return select.status();
  std::vector<std::string> names;
  for (;;) {
    absl::StatusOr<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!*row) return names;
    names.push_back(select->ColumnText(0));
  }
}

absl::StatusOr<bool> ReadHasSeries(Connection& connection, const std::string& name) {
  absl::StatusOr<Statement> select =
      connection.Prepare("SELECT 1 FROM series WHERE name = ?1 LIMIT 1", "look up a series name");
  if (!select.ok()) return select.status();
  select->BindText(1, name);
  return select->Step();
}

}  // namespace nictune::store
