// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/run_command.h"

#include <optional>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/build_info.h"
#include "agent/cli/agent_request.h"
#include "agent/cli/device_ring.h"
#include "agent/cli/exit_code.h"
#include "agent/cli/history_view.h"
#include "agent/cli/json_text.h"
#include "agent/cli/local_whatif_client.h"
#include "agent/cli/recommend_commands.h"
#include "agent/cli/recommend_view.h"
#include "agent/cli/result_view.h"
#include "agent/cli/status_view.h"
#include "agent/cli/text_table.h"
#include "agent/cli/top_view.h"
#include "agent/cli/usage_text.h"
#include "agent/cli/whatif_view.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

constexpr const char* kClearScreen = "\x1b[H\x1b[2J";

// What to add to an unreachable agent's message so a person knows what to try.
std::string Hint(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kPermissionDenied:
      return " (the agent's socket is root-only: run nictune as root)";
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kUnavailable:
      return " (is nictuned running, and is --socket or --url the one it serves?)";
    default:
      return "";
  }
}

// The exchange's answer as JSON, or the exit code after printing why there is none.
struct Answer {
  std::optional<Json> json;
  ExitCode code = ExitCode::kOk;
};

Answer Exchange(AgentClient& client, const AgentRequest& request, Terminal& terminal,
                bool print_error_json) {
  absl::StatusOr<http::Response> response =
      client.Call(request.method, request.target, request.body);
  if (!response.ok()) {
    terminal.err << "nictune: cannot reach the agent: " << response.status().message()
                 << Hint(response.status()) << "\n";
    return {.json = std::nullopt, .code = ExitCode::kUnreachable};
  }
  const std::string what = absl::StrCat(client.Where(), ": ", request.method, " ", request.target);
  Json body = Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (response->status >= 400) {
    if (!body.is_discarded() && body.is_object() && body.contains("error")) {
      terminal.err << "nictune: " << what << ": " << response->status << " "
                   << TextAt(body, "error") << ": " << TextAt(body, "detail") << "\n";
      if (print_error_json) terminal.out << model::JsonText(body, 2) << "\n";
    } else {
      terminal.err << "nictune: " << what << ": " << response->status << ": "
                   << response->body.substr(0, 200) << "\n";
    }
    return {.json = std::nullopt, .code = ExitCode::kServerError};
  }
  if (body.is_discarded() || !body.is_object()) {
    terminal.err << "nictune: " << what << ": " << response->status
                 << " but the answer is not a JSON object: " << response->body.substr(0, 200)
                 << "\n";
    return {.json = std::nullopt, .code = ExitCode::kServerError};
  }
  return {.json = std::move(body), .code = ExitCode::kOk};
}

// The views fit `width`: their tables wrap and split (text_table.h), and any longer line of
// prose wraps. The --as forms are files and commands, printed as they are.
std::string Render(const Command& command, const Json& answer, size_t width) {
  return std::visit(
      [&answer, width](const auto& c) -> std::string {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, StatusCommand>) {
          return WrapLines(RenderStatus(answer, width), width);
        } else if constexpr (std::is_same_v<T, TopCommand>) {
          return WrapLines(RenderTop(answer, width), width);
        } else if constexpr (std::is_same_v<T, RecommendCommand>) {
          switch (c.format) {
            case RecommendFormat::kShell:
              return RenderRecommendationsAsShell(answer);
            case RecommendFormat::kSysctlConf:
              return RenderRecommendationsAsSysctlConf(answer);
            case RecommendFormat::kTunedProfile:
              return RenderRecommendationsAsTunedProfile(answer);
            case RecommendFormat::kTable:
              break;
          }
          return WrapLines(RenderRecommendations(answer, c.why, width), width);
        } else if constexpr (std::is_same_v<T, WhatifCommand>) {
          return WrapLines(RenderWhatif(answer), width);
        } else if constexpr (std::is_same_v<T, HistoryCommand>) {
          if (c.list) return RenderSeriesNames(answer);
          return WrapLines(c.sparkline ? RenderHistorySparklines(answer, width)
                                       : RenderHistoryTable(answer, width),
                           width);
        } else {
          return WrapLines(RenderResult(answer, width), width);
        }
      },
      command);
}

// One request, its answer printed. nlohmann throws on a field of an unexpected type deep in an
// answer; that boundary is here, so a newer agent's answer never aborts the CLI.
ExitCode RunOnce(const CliArgs& args, const AgentRequest& request, AgentClient& client,
                 Terminal& terminal, bool clear_screen) {
  Answer answer = Exchange(client, request, terminal, args.json);
  if (!answer.json) return answer.code;
  std::string text;
  if (args.json) {
    text = model::JsonText(*answer.json, 2) + "\n";
  } else {
    try {
      text = Render(args.command, *answer.json, terminal.width);
    } catch (const Json::exception& e) {
      terminal.err << "nictune: " << client.Where() << ": " << request.method << " "
                   << request.target << ": answer of an unexpected shape: " << e.what() << "\n";
      return ExitCode::kServerError;
    }
  }
  if (clear_screen) terminal.out << kClearScreen;
  terminal.out << text << std::flush;
  return ExitCode::kOk;
}

ExitCode RunTop(const CliArgs& args, const TopCommand& top, const AgentRequest& request,
                AgentClient& client, Pacer& pacer, Terminal& terminal) {
  // Off a terminal (a pipe, a script) a view without --count is one frame, so that a pasted line
  // returns; on one it refreshes until Ctrl-C.
  const int64_t frames = top.count.value_or(terminal.is_tty ? 0 : 1);  // 0: until Ctrl-C
  for (int64_t frame = 1;; ++frame) {
    if (frame > 1 && !terminal.is_tty && !args.json) terminal.out << "\n";
    if (const ExitCode code =
            RunOnce(args, request, client, terminal, terminal.is_tty && !args.json);
        code != ExitCode::kOk) {
      return code;
    }
    if (frames > 0 && frame >= frames) return ExitCode::kOk;
    if (!pacer.Sleep(top.interval)) return ExitCode::kOk;  // Ctrl-C ends a live view normally
  }
}

// whatif --device=D: the device's rx ring as the agent reads it, sent as ring_size. An exit code
// when there is none to send.
std::optional<ExitCode> ResolveDeviceRing(WhatifCommand& whatif, AgentClient& client,
                                          Terminal& terminal) {
  if (!whatif.device) return std::nullopt;
  const AgentRequest get{.method = "GET", .target = "/api/v1/snapshot", .body = ""};
  Answer snapshot = Exchange(client, get, terminal, /*print_error_json=*/false);
  if (!snapshot.json) return snapshot.code;
  absl::StatusOr<int64_t> ring = RxRingSize(*snapshot.json, *whatif.device);
  if (!ring.ok()) {
    terminal.err << "nictune whatif --device=" << *whatif.device << ": " << ring.status().message()
                 << "\n";
    return ExitCode::kServerError;
  }
  whatif.ring_size = *ring;
  return std::nullopt;
}

}  // namespace

int RunCli(const CliArgs& given, AgentClient& client, Pacer& pacer, Terminal terminal) {
  if (const auto* help = std::get_if<HelpCommand>(&given.command)) {
    // The parser named an unknown command already; an unknown one here still gets the whole text.
    std::optional<std::string> one =
        help->command ? CommandUsageText(*help->command) : std::nullopt;
    terminal.out << (one ? *one : UsageText());
    return ToInt(ExitCode::kOk);
  }
  if (std::holds_alternative<VersionCommand>(given.command)) {
    terminal.out << "nictune " << agent::Version() << "\n";
    return ToInt(ExitCode::kOk);
  }
  CliArgs args = given;
  if (auto* whatif = std::get_if<WhatifCommand>(&args.command)) {
    if (std::optional<ExitCode> code = ResolveDeviceRing(*whatif, client, terminal)) {
      return ToInt(*code);
    }
  }
  absl::StatusOr<AgentRequest> request = RequestFor(args.command, pacer.Now());
  if (!request.ok()) {
    terminal.err << request.status().message() << "\n";
    return ToInt(ExitCode::kUsage);
  }
  if (const auto* top = std::get_if<TopCommand>(&args.command)) {
    return ToInt(RunTop(args, *top, *request, client, pacer, terminal));
  }
  if (const auto* whatif = std::get_if<WhatifCommand>(&args.command); whatif && !whatif->device) {
    LocalWhatifClient local;
    return ToInt(RunOnce(args, *request, local, terminal, /*clear_screen=*/false));
  }
  return ToInt(RunOnce(args, *request, client, terminal, /*clear_screen=*/false));
}

}  // namespace nictune::cli
