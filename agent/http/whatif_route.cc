#include "agent/http/whatif_route.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/http/whatif_request.h"
#include "nlohmann/json.hpp"
#include "tuner/fill_math.h"
#include "tuner/sim_whatif.h"

namespace nictune::http {
namespace {

using Json = nlohmann::json;

// JSON has no infinity: an unbounded figure is null.
Json FiniteOrNull(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json InputsJson(const WhatifRequest& in) {
  return Json{{"rate_pps", in.rate_pps},
              {"truesize_bytes", in.truesize_bytes},
              {"rcvbuf_bytes", in.rcvbuf_bytes},
              {"drain_gap_us", in.drain_gap_us},
              {"margin", in.margin},
              {"rx_usecs", in.rx_usecs ? Json(*in.rx_usecs) : Json(nullptr)}};
}

// See kWhatifSimulatedPackets. The reader's gap period is the simulator's (sim_whatif.h).
int64_t SimulatedUs(const WhatifRequest& in, int64_t rx_usecs) {
  const double gap_period_us =
      in.drain_gap_us > 0 ? std::max<double>(1000, 10.0 * static_cast<double>(in.drain_gap_us)) : 0;
  const double us = std::max({kWhatifSimulatedPackets / in.rate_pps * 1e6,
                              10.0 * static_cast<double>(rx_usecs), 2 * gap_period_us});
  return std::min(kMaxWhatifSimulatedUs, static_cast<int64_t>(std::ceil(us)));
}

Json SimulationJson(int64_t rx_usecs, int64_t duration_us, const tuner::WhatIfResult& sim) {
  return Json{{"rx_usecs", rx_usecs},
              {"duration_s", static_cast<double>(duration_us) / 1e6},
              {"drops_per_s", sim.drops_per_s},
              {"socket_drops", sim.socket_drops},
              {"ring_drops", sim.ring_drops},
              {"interrupts_per_s", sim.interrupts_per_s},
              {"peak_socket_bytes", sim.peak_socket_bytes},
              {"peak_socket_fill", sim.peak_socket_fill},
              {"peak_packets_per_interrupt", sim.peak_packets_per_interrupt}};
}

std::string FillFormula(const WhatifRequest& in, const tuner::FillResult& fill) {
  return absl::StrFormat(
      "C = rcvbuf / truesize = %d B / %d B = %.2f packets; T_fill = C / rate = %.2f / %.0f pps = "
      "%.1f us; u_max = (1 - margin) * T_fill - drain_gap = (1 - %g) * %.1f us - %d us = %.1f us",
      in.rcvbuf_bytes, in.truesize_bytes, fill.capacity_packets, fill.capacity_packets, in.rate_pps,
      fill.fill_time_s * 1e6, in.margin, fill.fill_time_s * 1e6, in.drain_gap_us,
      fill.max_interval_s * 1e6);
}

Response Answer(const Request& request) {
  const std::string what = absl::StrCat(request.method, " ", request.path, ": ");
  absl::StatusOr<WhatifRequest> in = ParseWhatifRequest(request.body);
  if (!in.ok()) return ErrorResponse(400, "bad_request", what + std::string(in.status().message()));

  const tuner::FillInputs fill_inputs{.rate_pps = in->rate_pps,
                                      .truesize_bytes = static_cast<double>(in->truesize_bytes),
                                      .rcvbuf_bytes = static_cast<double>(in->rcvbuf_bytes),
                                      .drain_gap_s = static_cast<double>(in->drain_gap_us) / 1e6,
                                      .margin = in->margin};
  absl::StatusOr<tuner::FillResult> fill = tuner::ComputeFill(fill_inputs);
  if (!fill.ok()) {
    return ErrorResponse(400, "bad_request", what + std::string(fill.status().message()));
  }
  const double max_rx_usecs = fill->max_interval_s * 1e6;
  // The longest whole microsecond within u_max: the fewest interrupts that cannot overflow.
  std::optional<int64_t> recommended;
  if (max_rx_usecs >= 1) {
    recommended =
        std::min<int64_t>(static_cast<int64_t>(std::floor(max_rx_usecs)), kMaxWhatifRxUsecs);
  }
  // With no drop-free interval and none asked for, judge interrupting on every packet.
  const int64_t rx_usecs = in->rx_usecs.value_or(recommended.value_or(0));

  absl::StatusOr<double> needed =
      tuner::RcvbufNeeded(fill_inputs, static_cast<double>(rx_usecs) / 1e6);
  if (!needed.ok()) {
    return ErrorResponse(400, "bad_request", what + std::string(needed.status().message()));
  }
  const int64_t rcvbuf_needed = static_cast<int64_t>(std::ceil(*needed));

  tuner::WhatIfInput sim_input;
  sim_input.rate_pps = in->rate_pps;
  sim_input.truesize_bytes = in->truesize_bytes;
  sim_input.rcvbuf_bytes = in->rcvbuf_bytes;
  sim_input.drain_gap_us = in->drain_gap_us;
  sim_input.rx_usecs = rx_usecs;
  sim_input.duration_us = SimulatedUs(*in, rx_usecs);
  absl::StatusOr<tuner::WhatIfResult> sim = tuner::SimulateWhatIf(sim_input);
  if (!sim.ok()) {
    return ErrorResponse(400, "bad_request", what + std::string(sim.status().message()));
  }

  const std::string formula = FillFormula(*in, *fill);
  Json recommendation;
  if (recommended) {
    recommendation = Json{
        {"rx_usecs", *recommended},
        {"rcvbuf_bytes", nullptr},
        {"formula", absl::StrCat(formula, "; rx_usecs = floor(u_max) = ", *recommended, " us")},
        {"rationale",
         absl::StrFormat("interrupting every %d us or sooner (at least %.0f interrupts/s) keeps "
                         "the socket from overflowing; longer intervals drop packets",
                         *recommended, fill->min_interrupt_rate)}};
  } else {
    recommendation = Json{
        {"rx_usecs", nullptr},
        {"rcvbuf_bytes", rcvbuf_needed},
        {"formula",
         absl::StrFormat("%s; no interval works (u_max < 1 us): rcvbuf_needed = rate * (rx_usecs "
                         "+ drain_gap) * truesize / (1 - margin) = %.0f pps * (%d + %d) us * %d B "
                         "/ (1 - %g) = %d B",
                         formula, in->rate_pps, rx_usecs, in->drain_gap_us, in->truesize_bytes,
                         in->margin, rcvbuf_needed)},
        {"rationale",
         absl::StrFormat("the socket fills faster than any interrupt interval can drain it; raise "
                         "SO_RCVBUF (and rmem_max) to %d bytes",
                         rcvbuf_needed)}};
  }

  const Json body{{"inputs", InputsJson(*in)},
                  {"capacity_packets", fill->capacity_packets},
                  {"fill_time_us", fill->fill_time_s * 1e6},
                  {"max_rx_usecs", max_rx_usecs},
                  {"min_interrupt_rate", FiniteOrNull(fill->min_interrupt_rate)},
                  {"rx_usecs", rx_usecs},
                  {"rcvbuf_needed_bytes", rcvbuf_needed},
                  {"simulation", SimulationJson(rx_usecs, sim_input.duration_us, *sim)},
                  {"recommendation", std::move(recommendation)}};
  return Response{.status = 200, .body = body.dump()};
}

}  // namespace

absl::Status AddWhatifRoute(Router& router) {
  return router.Add("POST", kWhatifPath, Effect::kReadsOnly, Answer);
}

}  // namespace nictune::http
