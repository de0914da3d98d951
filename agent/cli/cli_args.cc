// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/cli_args.h"

#include <cmath>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "agent/cli/agent_request.h"
#include "agent/cli/usage_text.h"
#include "agent/http/whatif_request.h"

namespace nictune::cli {
namespace {

struct Option {
  std::string name;
  std::optional<std::string> value;  // none: bare --name
};

// Options that a bare --name sets: the word after one is its value only when it is true or false.
bool IsSwitch(absl::string_view name) {
  return name == "json" || name == "help" || name == "version" || name == "why" ||
         name == "sparkline" || name == "list";
}

absl::Status Usage(absl::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

// The options of one command, consumed one by one; whatever is left over is unknown.
class Options {
 public:
  Options(std::string command, std::vector<Option> options)
      : command_(std::move(command)), options_(std::move(options)) {}

  // The values given for --name (removed from what is left).
  std::vector<Option> Take(absl::string_view name) {
    std::vector<Option> taken;
    for (auto it = options_.begin(); it != options_.end();) {
      if (it->name == name) {
        taken.push_back(*it);
        it = options_.erase(it);
      } else {
        ++it;
      }
    }
    return taken;
  }

  absl::StatusOr<std::optional<std::string>> String(absl::string_view name) {
    std::vector<Option> taken = Take(name);
    if (taken.empty()) return std::optional<std::string>();
    if (taken.size() > 1) return Usage(absl::StrCat(Where(name), "given more than once"));
    if (!taken[0].value || taken[0].value->empty()) {
      return Usage(absl::StrCat(Where(name), "needs a value (--", name, "=VALUE)"));
    }
    return taken[0].value;
  }

  absl::StatusOr<std::optional<int64_t>> Integer(absl::string_view name, int64_t min, int64_t max) {
    absl::StatusOr<std::optional<std::string>> text = String(name);
    if (!text.ok()) return text.status();
    if (!text->has_value()) return std::optional<int64_t>();
    int64_t value = 0;
    if (!absl::SimpleAtoi(**text, &value) || value < min || value > max) {
      return Usage(
          absl::StrCat(Where(name), "\"", **text, "\" is not an integer in ", min, "..", max));
    }
    return value;
  }

  absl::StatusOr<std::optional<double>> Number(absl::string_view name) {
    absl::StatusOr<std::optional<std::string>> text = String(name);
    if (!text.ok()) return text.status();
    if (!text->has_value()) return std::optional<double>();
    double value = 0;
    if (!absl::SimpleAtod(**text, &value) || !std::isfinite(value)) {
      return Usage(absl::StrCat(Where(name), "\"", **text, "\" is not a number"));
    }
    return value;
  }

  absl::StatusOr<bool> Bool(absl::string_view name) {
    std::vector<Option> taken = Take(name);
    if (taken.empty()) return false;
    if (taken.size() > 1) return Usage(absl::StrCat(Where(name), "given more than once"));
    if (!taken[0].value || *taken[0].value == "true") return true;
    if (*taken[0].value == "false") return false;
    return Usage(absl::StrCat(Where(name), "\"", *taken[0].value, "\" is not true or false"));
  }

  // Fails naming the first option nobody took.
  absl::Status NoneLeft() const {
    if (options_.empty()) return absl::OkStatus();
    return Usage(absl::StrCat(Prefix(), ": unknown option --", options_[0].name));
  }

 private:
  // "nictune" or "nictune COMMAND": what an error names first.
  std::string Prefix() const {
    return command_.empty() ? "nictune" : absl::StrCat("nictune ", command_);
  }
  std::string Where(absl::string_view name) const {
    return absl::StrCat(Prefix(), " --", name, ": ");
  }

  std::string command_;
  std::vector<Option> options_;
};

template <typename T>
absl::Status Assign(absl::StatusOr<T> parsed, T& out) {
  if (!parsed.ok()) return parsed.status();
  out = *std::move(parsed);
  return absl::OkStatus();
}

absl::StatusOr<Command> ParseTop(Options& options) {
  TopCommand top;
  std::optional<std::string> interval;
  if (absl::Status s = Assign(options.String("interval"), interval); !s.ok()) return s;
  if (interval) {
    if (!absl::ParseDuration(*interval, &top.interval) || top.interval < absl::Milliseconds(100) ||
        top.interval > absl::Hours(1)) {
      return Usage(absl::StrCat("nictune top --interval: \"", *interval,
                                "\" is not a duration from 100ms to 1h (e.g. 2s)"));
    }
  }
  if (absl::Status s = Assign(options.Integer("count", 1, 1'000'000), top.count); !s.ok()) {
    return s;
  }
  return top;
}

absl::StatusOr<Command> ParseWhatif(Options& options) {
  WhatifCommand whatif;
  std::optional<double> rate;
  std::optional<int64_t> truesize;
  std::optional<int64_t> rcvbuf;
  // The types here; the ranges below, by the agent's own parser of the request (whatif_request.h).
  constexpr int64_t kMax = int64_t{1} << 40;
  for (absl::Status s : {Assign(options.Number("rate_pps"), rate),
                         Assign(options.Integer("truesize_bytes", 0, kMax), truesize),
                         Assign(options.Integer("rcvbuf_bytes", 0, kMax), rcvbuf),
                         Assign(options.Integer("drain_gap_us", 0, kMax), whatif.drain_gap_us),
                         Assign(options.Number("margin"), whatif.margin),
                         Assign(options.Integer("rx_usecs", 0, kMax), whatif.rx_usecs),
                         Assign(options.Integer("ring_size", 0, kMax), whatif.ring_size),
                         Assign(options.String("device"), whatif.device)}) {
    if (!s.ok()) return s;
  }
  if (whatif.ring_size && whatif.device) {
    return Usage("nictune whatif: --ring_size and --device both give the ring; pass one");
  }
  std::vector<std::string> missing;
  if (!rate) missing.push_back("--rate_pps");
  if (!truesize) missing.push_back("--truesize_bytes");
  if (!rcvbuf) missing.push_back("--rcvbuf_bytes");
  if (!missing.empty()) {
    return Usage(absl::StrCat("nictune whatif: missing ", absl::StrJoin(missing, ", ")));
  }
  whatif.rate_pps = *rate;
  whatif.truesize_bytes = *truesize;
  whatif.rcvbuf_bytes = *rcvbuf;
  // Out of range is a usage error too: nothing is sent (the ring --device names is the agent's
  // reading, asked for later).
  if (absl::Status in_range = http::ParseWhatifRequest(WhatifRequestBody(whatif)).status();
      !in_range.ok()) {
    return Usage(absl::StrCat("nictune: ", in_range.message()));
  }
  return whatif;
}

absl::StatusOr<Command> ParseApply(Options& options) {
  ApplyCommand apply;
  for (absl::Status s : {Assign(options.String("knob"), apply.knob),
                         Assign(options.String("target"), apply.target)}) {
    if (!s.ok()) return s;
  }
  if (apply.knob.has_value() != apply.target.has_value()) {
    return Usage(
        "nictune apply: give both --knob and --target (one recommendation) or neither "
        "(all current recommendations)");
  }
  return apply;
}

absl::StatusOr<Command> ParseRollback(Options& options) {
  RollbackCommand rollback;
  for (absl::Status s : {Assign(options.Integer("change", 1, INT64_MAX), rollback.change_id),
                         Assign(options.String("knob"), rollback.knob),
                         Assign(options.String("target"), rollback.target)}) {
    if (!s.ok()) return s;
  }
  const bool by_knob = rollback.knob.has_value() && rollback.target.has_value();
  const bool some_knob = rollback.knob.has_value() || rollback.target.has_value();
  if (rollback.change_id.has_value() == some_knob || (some_knob && !by_knob)) {
    return Usage("nictune rollback: give either --change=ID or both --knob and --target");
  }
  return rollback;
}

absl::StatusOr<Command> ParseHistory(Options& options) {
  HistoryCommand history;
  std::optional<std::string> series;
  for (absl::Status s :
       {Assign(options.String("series"), series), Assign(options.String("since"), history.since),
        Assign(options.String("until"), history.until),
        Assign(options.String("step"), history.step),
        Assign(options.Bool("sparkline"), history.sparkline),
        Assign(options.Bool("list"), history.list)}) {
    if (!s.ok()) return s;
  }
  if (history.list) {
    if (series || history.since || history.until || history.step || history.sparkline ||
        !options.Take("label").empty()) {
      return Usage("nictune history --list: takes no other option");
    }
    return history;
  }
  if (!series) return Usage("nictune history: missing --series=NAME[,NAME...] (--list names them)");
  history.series = absl::StrSplit(*series, ',', absl::SkipEmpty());
  for (const Option& label : options.Take("label")) {
    if (!label.value || label.value->find('=') == std::string::npos ||
        label.value->front() == '=') {
      return Usage("nictune history --label: expected KEY=VALUE, e.g. --label=device=eth0");
    }
    history.labels.push_back(*label.value);
  }
  return history;
}

absl::StatusOr<Command> ParseCommand(const std::string& name, Options& options) {
  if (name == "status") return StatusCommand{};
  if (name == "restore") return RestoreCommand{};
  if (name == "version") return VersionCommand{};
  if (name == "top") return ParseTop(options);
  if (name == "recommend") {
    RecommendCommand recommend;
    if (absl::Status s = Assign(options.Bool("why"), recommend.why); !s.ok()) return s;
    std::optional<std::string> as;
    if (absl::Status s = Assign(options.String("as"), as); !s.ok()) return s;
    // "shell" and "sysctl.d" are the names these had first.
    if (as == "ethtool" || as == "shell") recommend.format = RecommendFormat::kShell;
    if (as == "sysctl" || as == "sysctl.d") recommend.format = RecommendFormat::kSysctlConf;
    if (as == "tuned") recommend.format = RecommendFormat::kTunedProfile;
    if (as && recommend.format == RecommendFormat::kTable) {
      return Usage(absl::StrCat("nictune recommend --as: \"", *as,
                                "\" is not ethtool, sysctl or tuned"));
    }
    if (as && recommend.why) return Usage("nictune recommend: give --why or --as, not both");
    return recommend;
  }
  if (name == "whatif") return ParseWhatif(options);
  if (name == "apply") return ParseApply(options);
  if (name == "rollback") return ParseRollback(options);
  if (name == "history") return ParseHistory(options);
  return Usage(absl::StrCat("nictune: unknown command \"", name, "\" (", CommandNames(), ")"));
}

}  // namespace

absl::StatusOr<CliArgs> ParseCliArgs(const std::vector<std::string>& args) {
  std::optional<std::string> command;
  std::optional<std::string> help_topic;  // `help COMMAND`
  std::vector<Option> options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options.push_back({.name = "help", .value = std::nullopt});
    } else if (absl::StartsWith(arg, "--") && arg.size() > 2) {
      const size_t equals = arg.find('=');
      Option option{
          .name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2),
          .value = std::nullopt};
      if (equals != std::string::npos) {
        option.value = arg.substr(equals + 1);
      } else if (IsSwitch(option.name) && i + 1 < args.size() &&
                 (args[i + 1] == "true" || args[i + 1] == "false")) {
        option.value = args[++i];  // `--json false`: no command or argument is spelled so
      } else if (!IsSwitch(option.name) && i + 1 < args.size() &&
                 !absl::StartsWith(args[i + 1], "--") &&
                 // Before the command, a command's name is the command: `--jsn status` is an
                 // unknown option, not --jsn=status.
                 (command || !CommandUsageText(args[i + 1]))) {
        option.value = args[++i];
      }
      options.push_back(std::move(option));
    } else if (!command) {
      command = arg;
    } else if (*command == "help" && !help_topic) {
      help_topic = arg;
    } else {
      return Usage(absl::StrCat("nictune: unexpected argument \"", arg, "\" after command \"",
                                *command, "\""));
    }
  }

  Options parsed(command.value_or(""), std::move(options));
  CliArgs out;
  std::optional<std::string> socket;
  bool help = false;
  bool version = false;
  for (absl::Status s :
       {Assign(parsed.String("socket"), socket), Assign(parsed.String("url"), out.url),
        Assign(parsed.String("token_file"), out.token_file), Assign(parsed.Bool("json"), out.json),
        Assign(parsed.Bool("help"), help), Assign(parsed.Bool("version"), version)}) {
    if (!s.ok()) return s;
  }
  if (socket && out.url) return Usage("nictune: give --socket or --url, not both");
  if (out.token_file && !out.url) {
    return Usage("nictune: --token_file goes with --url (the unix socket needs no token)");
  }
  if (socket) out.socket_path = *socket;
  if (version && !help) {
    out.command = VersionCommand{};
    return out;
  }
  if (command == "help") {
    help = true;
    command = help_topic;
  }
  if (help || !command) {
    if (!help) {
      // An option nobody takes is the mistake to name, not the missing command.
      if (absl::Status s = parsed.NoneLeft(); !s.ok()) return s;
      return Usage("nictune: no command given");
    }
    if (command && !CommandUsageText(*command)) {
      return Usage(absl::StrCat("nictune help: unknown command \"", *command, "\" (",
                                CommandNames(), ")"));
    }
    out.command = HelpCommand{.command = command};
    return out;
  }
  absl::StatusOr<Command> parsed_command = ParseCommand(*command, parsed);
  if (!parsed_command.ok()) return parsed_command.status();
  if (absl::Status s = parsed.NoneLeft(); !s.ok()) return s;
  if (const auto* recommend = std::get_if<RecommendCommand>(&*parsed_command);
      recommend != nullptr && recommend->format != RecommendFormat::kTable && out.json) {
    return Usage("nictune recommend: give --json or --as, not both");
  }
  out.command = *std::move(parsed_command);
  return out;
}

}  // namespace nictune::cli
