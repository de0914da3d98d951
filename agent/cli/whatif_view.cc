// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/whatif_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/cli/json_text.h"
#include "tuner/count_text.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

std::string Fixed(std::optional<double> value, int decimals) {
  return value ? absl::StrFormat("%.*f", decimals, *value) : "-";
}

std::string Packets(std::optional<double> count) {
  return count ? tuner::PacketsText(*count, 0) : std::string("- packets");
}

Json ObjectAt(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_object() ? j[key] : Json::object();
}

// "drop-free up to 87.4 us (11447 interrupts/s or more)", or that no interval is.
std::string LimitLine(const Json& answer) {
  const std::optional<double> max_us = NumberAt(answer, "max_rx_usecs");
  if (!max_us) return "no interrupt interval keeps this buffer from overflowing\n";
  const std::optional<double> min_rate = NumberAt(answer, "min_interrupt_rate");
  return absl::StrCat("drop-free interrupt interval up to ", Fixed(max_us, 1), " us",
                      min_rate ? absl::StrCat(" (", Fixed(min_rate, 0), " interrupts/s or more)")
                               : std::string(" (an interrupt for every packet)"),
                      "\n");
}

std::string RecommendationLine(const Json& r) {
  std::string out = absl::StrCat("recommended: rx-usecs ", TextAt(r, "rx_usecs"));
  if (NumberAt(r, "so_rcvbuf_bytes")) {
    absl::StrAppend(&out, " and SO_RCVBUF ", TextAt(r, "so_rcvbuf_bytes"),
                    " bytes (the kernel doubles it: sk_rcvbuf ", TextAt(r, "rcvbuf_bytes"),
                    "; rmem_max must be at least ", TextAt(r, "so_rcvbuf_bytes"), ")");
  } else {
    absl::StrAppend(&out, ", the buffer as it is (", TextAt(r, "rcvbuf_bytes"), " bytes)");
  }
  absl::StrAppend(&out, ", about ", Fixed(NumberAt(r, "interrupts_per_s"), 0), " interrupts/s",
                  r.contains("drop_free") && r["drop_free"] == false ? ", not drop-free" : "", "\n");
  return out;
}

std::string SimulationLine(const char* what, const Json& sim) {
  return absl::StrCat(
      what, " rx-usecs ", TextAt(sim, "rx_usecs"), " with rcvbuf ", TextAt(sim, "rcvbuf_bytes"),
      " for ", NumberOrDash(NumberAt(sim, "duration_s"), 3),
      " s: ", NumberOrDash(NumberAt(sim, "drops_per_s"), 4), " drops/s (socket ",
      TextAt(sim, "socket_drops"), ", ring ", TextAt(sim, "ring_drops"), "), ",
      NumberOrDash(NumberAt(sim, "interrupts_per_s"), 5), " interrupts/s, peak fill ",
      Percent(NumberAt(sim, "peak_socket_fill")), "%, at most ",
      Packets(NumberAt(sim, "peak_packets_per_interrupt")), " per interrupt\n");
}

}  // namespace

std::string RenderWhatif(const Json& answer) {
  std::string out = absl::StrCat(
      "capacity ", Fixed(NumberAt(answer, "capacity_packets"), 2), " packets (",
      Fixed(NumberAt(answer, "usable_packets"), 2), " usable), fill time ",
      Fixed(NumberAt(answer, "fill_time_us"), 1), " us\n", LimitLine(answer));
  const Json recommendation = ObjectAt(answer, "recommendation");
  if (NumberAt(recommendation, "rx_usecs")) {
    absl::StrAppend(&out, RecommendationLine(recommendation));
  }
  if (const std::string rationale = TextAt(recommendation, "rationale"); !rationale.empty()) {
    absl::StrAppend(&out, "  why:     ", rationale, "\n");
  }
  if (const std::string formula = TextAt(recommendation, "formula"); !formula.empty()) {
    absl::StrAppend(&out, "  formula: ", formula, "\n");
  }
  const std::optional<double> held = NumberAt(answer, "packets_held");
  absl::StrAppend(&out, "at rx-usecs ", TextAt(answer, "rx_usecs"), " the socket holds ",
                  Packets(held), ": rcvbuf needed ", TextAt(answer, "rcvbuf_needed_bytes"),
                  " bytes\n");
  const Json sim = ObjectAt(answer, "simulation");
  // Without --ring_size or --device the plan has no ring limit; say what the simulation took.
  const Json inputs = ObjectAt(answer, "inputs");
  if (!sim.empty() && inputs.contains("ring_size") && inputs["ring_size"].is_null()) {
    absl::StrAppend(&out,
                    "ring not given (--ring_size or --device): no ring limit planned; "
                    "simulated with ",
                    TextAt(sim, "ring_size"), " descriptors, more than an interval brings\n");
  }
  if (!sim.empty()) absl::StrAppend(&out, SimulationLine("simulated at", sim));
  const Json recommended = ObjectAt(recommendation, "simulation");
  if (!recommended.empty() && recommended != sim) {
    absl::StrAppend(&out, SimulationLine("simulated the recommendation,", recommended));
  }
  return out;
}

}  // namespace nictune::cli
