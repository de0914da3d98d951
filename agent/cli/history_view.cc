// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/history_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "agent/cli/json_text.h"
#include "agent/cli/text_table.h"
#include "agent/cli/time_text.h"
#include "agent/model/json_text.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

constexpr size_t kSparklineWidth = 60;
// Narrower than this a sparkline says little: the table then wraps or splits instead.
constexpr size_t kNarrowestSparkline = 10;

struct Series {
  std::string title;                              // name{k=v,...}
  std::vector<std::pair<double, double>> points;  // unix seconds, value
};

std::vector<Series> SeriesOf(const Json& history) {
  std::vector<Series> out;
  if (!history.contains("series") || !history["series"].is_array()) return out;
  for (const Json& s : history["series"]) {
    Series series{.title = TextAt(s, "name"), .points = {}};
    if (s.contains("labels") && s["labels"].is_object() && !s["labels"].empty()) {
      std::vector<std::string> labels;
      for (const auto& [key, value] : s["labels"].items()) {
        labels.push_back(absl::StrCat(
            key, "=", value.is_string() ? value.get<std::string>() : model::JsonText(value)));
      }
      series.title += absl::StrCat("{", absl::StrJoin(labels, ","), "}");
    }
    if (s.contains("points") && s["points"].is_array()) {
      for (const Json& p : s["points"]) {
        if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number()) {
          series.points.emplace_back(p[0].get<double>(), p[1].get<double>());
        }
      }
    }
    out.push_back(std::move(series));
  }
  return out;
}

// The store keeps a counter as its rate (docs/metrics.md "History"): the figures of a _total
// series are per second, which its name does not say.
std::string RateNote(const std::vector<Series>& series) {
  const bool any_counter = std::any_of(series.begin(), series.end(), [](const Series& s) {
    return absl::EndsWith(s.title.substr(0, s.title.find('{')), "_total");
  });
  return any_counter ? "a _total series holds its per-second rate over each window, not the "
                       "counter\n"
                     : "";
}

}  // namespace

std::string Sparkline(const std::vector<double>& values, size_t width) {
  static const char* const kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (values.empty() || width == 0) return "";
  std::vector<double> columns;
  const size_t n = std::min(width, values.size());
  for (size_t c = 0; c < n; ++c) {
    const size_t begin = c * values.size() / n;
    const size_t end = std::max(begin + 1, (c + 1) * values.size() / n);
    double sum = 0;
    for (size_t i = begin; i < end; ++i) sum += values[i];
    columns.push_back(sum / static_cast<double>(end - begin));
  }
  const auto [low, high] = std::minmax_element(columns.begin(), columns.end());
  std::string out;
  for (const double v : columns) {
    size_t level = 3;
    if (*high > *low) {
      level = static_cast<size_t>(std::lround((v - *low) / (*high - *low) * 7));
    }
    out += kBlocks[std::min<size_t>(level, 7)];
  }
  return out;
}

std::string RenderHistoryTable(const Json& history, size_t width) {
  const std::vector<Series> series = SeriesOf(history);
  if (series.empty()) return "no stored samples for these series in this range\n";
  std::vector<Column> columns{{"TIME (UTC)"}};
  // Rows keyed by the time in milliseconds: series stored at the same step line up.
  std::map<int64_t, std::vector<std::string>> rows;
  for (size_t i = 0; i < series.size(); ++i) {
    columns.push_back({series[i].title, Align::kRight});
    for (const auto& [t, v] : series[i].points) {
      std::vector<std::string>& row = rows[std::llround(t * 1e3)];
      row.resize(series.size(), "-");
      row[i] = FormatNumber(v, 6);
    }
  }
  TextTable table(std::move(columns));
  for (auto& [ms, cells] : rows) {
    cells.insert(cells.begin(), TimeText(absl::FromUnixMillis(ms)));
    table.AddRow(std::move(cells));
  }
  std::string out = table.Render(width);
  if (const std::optional<double> step = NumberAt(history, "resolution_s")) {
    absl::StrAppend(&out, rows.size(), " rows, resolution ", FormatNumber(*step), " s\n");
  }
  return out + WrapLines(RateNote(series), width);
}

std::string RenderHistorySparklines(const Json& history, size_t width) {
  const std::vector<Series> series = SeriesOf(history);
  if (series.empty()) return "no stored samples for these series in this range\n";
  std::vector<std::vector<double>> values(series.size());
  for (size_t i = 0; i < series.size(); ++i) {
    for (const auto& point : series[i].points) values[i].push_back(point.second);
  }
  // The table with its sparklines `spark_width` wide (0: none drawn).
  const auto table_with = [&series, &values](size_t spark_width) {
    TextTable table({{"SERIES"},
                     {"SPARKLINE"},
                     {"MIN", Align::kRight},
                     {"MAX", Align::kRight},
                     {"LAST", Align::kRight},
                     {"POINTS", Align::kRight}});
    for (size_t i = 0; i < series.size(); ++i) {
      const std::vector<double>& v = values[i];
      if (v.empty()) {
        table.AddRow({series[i].title, "(no points)", "-", "-", "-", "0"});
        continue;
      }
      const auto [low, high] = std::minmax_element(v.begin(), v.end());
      table.AddRow({series[i].title, Sparkline(v, spark_width), FormatNumber(*low, 6),
                    FormatNumber(*high, 6), FormatNumber(v.back(), 6), absl::StrCat(v.size())});
    }
    return table;
  };
  // The sparkline gets what the other columns leave, so that it is drawn narrower, not wrapped.
  const size_t spark_width =
      std::clamp(table_with(0).WidthLeftFor(1, width), kNarrowestSparkline, kSparklineWidth);
  return table_with(spark_width).Render(width) + WrapLines(RateNote(series), width);
}

std::string RenderSeriesNames(const Json& names) {
  std::string out;
  for (const Json& name : names.value("series", Json::array())) {
    if (name.is_string()) absl::StrAppend(&out, name.get<std::string>(), "\n");
  }
  return out.empty() ? "no stored series\n" : out;
}

}  // namespace nictune::cli
