// SPDX-License-Identifier: Apache-2.0
#include "agent/http/whatif_route.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/http/whatif_request.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"
#include "tuner/fill_math.h"
#include "tuner/sim_whatif.h"
#include "tuner/whatif.h"

namespace nictune::http {
namespace {

using Json = nlohmann::json;

// A figure for JSON, which has no infinity: an unbounded one is null. Twelve significant digits
// drop the binary noise of the arithmetic (50000.00000000001 interrupts/s) and keep every digit the
// model means.
Json FigureOrNull(double value) {
  if (!std::isfinite(value)) return Json(nullptr);
  const std::string text = absl::StrFormat("%.12g", value);
  double rounded = value;
  std::from_chars(text.data(), text.data() + text.size(), rounded);  // locale-free, unlike strtod
  return Json(rounded);
}

template <typename T>
Json ValueOrNull(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json InputsJson(const tuner::WhatIfQuestion& q) {
  return Json{{"rate_pps", FigureOrNull(q.rate_pps)}, {"truesize_bytes", q.truesize_bytes},
              {"rcvbuf_bytes", q.rcvbuf_bytes},       {"drain_gap_us", q.drain_gap_us},
              {"margin", FigureOrNull(q.margin)},     {"rx_usecs", ValueOrNull(q.rx_usecs)},
              {"ring_size", ValueOrNull(q.ring_size)}};
}

// The simulator's run of the question at rx_usecs with rcvbuf_bytes.
absl::StatusOr<Json> Simulation(const tuner::WhatIfQuestion& q, int64_t rx_usecs,
                                int64_t rcvbuf_bytes) {
  const tuner::WhatIfInput in = tuner::WhatIfSimulationInput(q, rx_usecs, rcvbuf_bytes);
  absl::StatusOr<tuner::WhatIfResult> sim = tuner::SimulateWhatIf(in);
  if (!sim.ok()) return sim.status();
  return Json{{"rx_usecs", rx_usecs},
              {"rcvbuf_bytes", rcvbuf_bytes},
              {"ring_size", in.ring_size},
              {"duration_s", static_cast<double>(in.duration_us) / 1e6},
              {"drops_per_s", FigureOrNull(sim->drops_per_s)},
              {"socket_drops", sim->socket_drops},
              {"ring_drops", sim->ring_drops},
              {"interrupts_per_s", FigureOrNull(sim->interrupts_per_s)},
              {"peak_socket_bytes", sim->peak_socket_bytes},
              {"peak_socket_fill", FigureOrNull(sim->peak_socket_fill)},
              {"peak_packets_per_interrupt", sim->peak_packets_per_interrupt}};
}

Json RecommendationJson(const tuner::WhatIfAdvice& a) {
  return Json{{"rx_usecs", a.rx_usecs},
              {"rcvbuf_bytes", a.rcvbuf_bytes},
              {"so_rcvbuf_bytes", ValueOrNull(a.so_rcvbuf_bytes)},
              {"interrupts_per_s", FigureOrNull(a.plan.predicted_interrupt_rate)},
              {"drop_free", a.drop_free},
              {"unresolved", a.unresolved.empty() ? Json(nullptr) : Json(a.unresolved)},
              {"formula", a.formula},
              {"rationale", a.rationale}};
}

// The answer's figures: the socket's fill math, the tuner's limits, and the hold at rx_usecs.
Json FiguresJson(const tuner::WhatIfQuestion& q, const tuner::WhatIfAdvice& a, int64_t rx_usecs) {
  const tuner::IntervalPlan& plan = a.plan;
  const tuner::FillResult& fill = plan.worst_fill;
  const tuner::WhatIfHold hold = tuner::HoldAt(a, rx_usecs);
  const bool fits = plan.some_interval_fits;
  return Json{
      {"inputs", InputsJson(q)},
      {"capacity_packets", FigureOrNull(fill.capacity_packets)},
      {"usable_packets", FigureOrNull(plan.worst_usable_packets)},
      {"fill_time_us", FigureOrNull(fill.fill_time_s * 1e6)},
      {"max_rx_usecs", fits ? FigureOrNull(plan.max_interval_s * 1e6) : Json(nullptr)},
      {"min_interrupt_rate",
       fits && plan.max_interval_s > 0 ? FigureOrNull(1 / plan.max_interval_s) : Json(nullptr)},
      {"interrupt_ceiling", FigureOrNull(plan.ceiling.max_rate)},
      {"ring_limit_us", FigureOrNull(plan.ring_limit_s * 1e6)},
      {"rx_usecs", rx_usecs},
      {"packets_held", FigureOrNull(hold.packets)},
      {"rcvbuf_needed_bytes", hold.rcvbuf_needed_bytes}};
}

Response AnswerWhatif(const Request& request) {
  const auto bad = [](const absl::Status& status) {
    return ErrorResponse(400, "bad_request", std::string(status.message()));
  };
  absl::StatusOr<tuner::WhatIfQuestion> q = ParseWhatifRequest(request.body);
  if (!q.ok()) return bad(q.status());
  absl::StatusOr<tuner::WhatIfAdvice> advice = tuner::AdviseWhatIf(*q);
  if (!advice.ok()) return bad(advice.status());
  // The interval asked about runs with the question's buffer; without one, the recommendation
  // with its own.
  const int64_t rx_usecs = q->rx_usecs.value_or(advice->rx_usecs);
  const int64_t rcvbuf = q->rx_usecs ? q->rcvbuf_bytes : advice->rcvbuf_bytes;
  absl::StatusOr<Json> simulation = Simulation(*q, rx_usecs, rcvbuf);
  if (!simulation.ok()) return bad(simulation.status());
  Json recommendation = RecommendationJson(*advice);
  if (q->rx_usecs) {
    absl::StatusOr<Json> recommended = Simulation(*q, advice->rx_usecs, advice->rcvbuf_bytes);
    if (!recommended.ok()) return bad(recommended.status());
    recommendation["simulation"] = *std::move(recommended);
  } else {
    recommendation["simulation"] = *simulation;
  }
  Json body = FiguresJson(*q, *advice, rx_usecs);
  body["simulation"] = *std::move(simulation);
  body["recommendation"] = std::move(recommendation);
  return Response{.status = 200, .body = model::JsonText(body)};
}

}  // namespace

absl::Status AddWhatifRoute(Router& router) {
  return router.Add("POST", kWhatifPath, Effect::kReadsOnly, AnswerWhatif);
}

}  // namespace nictune::http
