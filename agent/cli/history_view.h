// SPDX-License-Identifier: Apache-2.0
// `nictune history`: the answer of GET /api/v1/history as a compact table (one row per time, one
// column per series) or as one unicode sparkline per series with its min, max and last value.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderHistoryTable(const nlohmann::json& history, size_t width);

// GET /api/v1/history/series's names, one a line.
std::string RenderSeriesNames(const nlohmann::json& names);
std::string RenderHistorySparklines(const nlohmann::json& history, size_t width);

// Eight block characters from ▁ to █ scaled between the values' min and max (all ▄ when they are
// equal); at most `width` characters, averaging neighbouring values when there are more.
std::string Sparkline(const std::vector<double>& values, size_t width);

}  // namespace nictune::cli
