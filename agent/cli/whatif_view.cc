#include "agent/cli/whatif_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/cli/json_text.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

std::string Fixed(std::optional<double> value, int decimals) {
  return value ? absl::StrFormat("%.*f", decimals, *value) : "-";
}

}  // namespace

std::string RenderWhatif(const Json& answer) {
  std::string out = absl::StrCat(
      "capacity ", Fixed(NumberAt(answer, "capacity_packets"), 2), " packets, fill time ",
      Fixed(NumberAt(answer, "fill_time_us"), 1), " us\n", "drop-free interrupt interval u_max ",
      Fixed(NumberAt(answer, "max_rx_usecs"), 1), " us, at least ",
      NumberAt(answer, "min_interrupt_rate")
          ? Fixed(NumberAt(answer, "min_interrupt_rate"), 0) + " interrupts/s"
          : std::string("unbounded interrupts/s (no interval works)"),
      "\n");
  const Json recommendation =
      answer.contains("recommendation") ? answer["recommendation"] : Json::object();
  if (NumberAt(recommendation, "rx_usecs")) {
    absl::StrAppend(&out, "recommended: rx-usecs ", TextAt(recommendation, "rx_usecs"), "\n");
  } else if (NumberAt(recommendation, "rcvbuf_bytes")) {
    absl::StrAppend(&out, "recommended: SO_RCVBUF ", TextAt(recommendation, "rcvbuf_bytes"),
                    " bytes (no interrupt interval is short enough)\n");
  }
  if (const std::string rationale = TextAt(recommendation, "rationale"); !rationale.empty()) {
    absl::StrAppend(&out, "  why:     ", rationale, "\n");
  }
  if (const std::string formula = TextAt(recommendation, "formula"); !formula.empty()) {
    absl::StrAppend(&out, "  formula: ", formula, "\n");
  }
  absl::StrAppend(&out, "rcvbuf needed at rx-usecs ", TextAt(answer, "rx_usecs"), ": ",
                  TextAt(answer, "rcvbuf_needed_bytes"), " bytes\n");
  const Json sim = answer.contains("simulation") ? answer["simulation"] : Json::object();
  if (sim.is_object() && !sim.empty()) {
    absl::StrAppend(&out, "simulated at rx-usecs ", TextAt(sim, "rx_usecs"), " for ",
                    NumberOrDash(NumberAt(sim, "duration_s"), 3),
                    " s: ", NumberOrDash(NumberAt(sim, "drops_per_s"), 4), " drops/s (socket ",
                    TextAt(sim, "socket_drops"), ", ring ", TextAt(sim, "ring_drops"), "), ",
                    NumberOrDash(NumberAt(sim, "interrupts_per_s"), 5), " interrupts/s, peak fill ",
                    Percent(NumberAt(sim, "peak_socket_fill")), "%, peak ",
                    NumberOrDash(NumberAt(sim, "peak_packets_per_interrupt"), 4),
                    " packets per interrupt\n");
  }
  return out;
}

}  // namespace nictune::cli
