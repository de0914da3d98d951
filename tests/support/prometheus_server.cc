// SPDX-License-Identifier: Apache-2.0
#include "tests/support/prometheus_server.h"

#include <signal.h>

#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"

namespace nictune::testing_support {
namespace {

constexpr absl::Duration kRequestTimeout = absl::Seconds(10);

// Prometheus's duration syntax in whole milliseconds ("1000ms"), which every version accepts.
std::string PromDuration(absl::Duration duration) {
  return absl::StrCat(absl::ToInt64Milliseconds(duration), "ms");
}

std::string ConfigText(const PrometheusOptions& options) {
  std::string rules;
  for (const std::string& file : options.rule_files) absl::StrAppend(&rules, "  - ", file, "\n");
  // The scrape timeout may not exceed the interval.
  return absl::StrCat("global:\n  scrape_interval: ", PromDuration(options.scrape_interval),
                      "\n  scrape_timeout: ", PromDuration(options.scrape_interval),
                      "\n  evaluation_interval: ", PromDuration(options.evaluation_interval),
                      "\nrule_files:\n", rules, "scrape_configs:\n  - job_name: ", options.job_name,
                      "\n    metrics_path: /metrics\n    static_configs:\n      - targets: "
                      "[\"127.0.0.1:",
                      options.target_port, "\"]\n");
}

// Prometheus's log, which it writes to stderr; the end is where a start-up failure is.
std::string LogTail(const std::string& log) {
  constexpr size_t kTail = 2000;
  return log.size() <= kTail ? log : log.substr(log.size() - kTail);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PrometheusServer>> PrometheusServer::Start(
    const PrometheusOptions& options, absl::Duration ready_timeout) {
  const std::string config_path = options.directory + "/prometheus.yml";
  {
    std::ofstream config(config_path);
    config << ConfigText(options);
    config.close();
    if (!config) return absl::InternalError(absl::StrCat("writing ", config_path, " failed"));
  }
  absl::StatusOr<uint16_t> port = FreeLoopbackPort();
  if (!port.ok()) return port.status();
  absl::StatusOr<BackgroundProgram> program =
      BackgroundProgram::Start({kPrometheusBinary, "--config.file=" + config_path,
                                "--storage.tsdb.path=" + options.directory + "/tsdb",
                                absl::StrCat("--web.listen-address=127.0.0.1:", *port)});
  if (!program.ok()) return program.status();
  std::unique_ptr<PrometheusServer> server(
      new PrometheusServer(options, *port, *std::move(program)));

  const absl::Time deadline = absl::Now() + ready_timeout;
  absl::Status last = absl::UnavailableError("not asked yet");
  while (absl::Now() < deadline) {
    absl::StatusOr<HttpReply> ready = HttpGetLoopback(*port, "/-/ready", absl::Seconds(1));
    if (ready.ok() && ready->status == 200) return server;
    last = ready.ok()
               ? absl::UnavailableError(absl::StrCat("HTTP ", ready->status, ": ", ready->body))
               : ready.status();
    absl::SleepFor(absl::Milliseconds(100));
  }
  absl::StatusOr<std::string> log = server->Stop(absl::Seconds(2));
  return absl::DeadlineExceededError(
      absl::StrCat("prometheus on 127.0.0.1:", *port, " not ready within ",
                   absl::FormatDuration(ready_timeout), " (last: ", last.message(),
                   "); its log ends:\n", LogTail(log.value_or(log.status().ToString()))));
}

PrometheusServer::~PrometheusServer() {
  if (!stopped_) Stop(absl::Seconds(5)).IgnoreError();  // the destructor kills it regardless
}

std::string PrometheusServer::target() const {
  return absl::StrCat("127.0.0.1:", options_.target_port);
}

absl::StatusOr<nlohmann::json> PrometheusServer::Api(const std::string& path_and_query) const {
  const std::string target = "/api/v1/" + path_and_query;
  absl::StatusOr<HttpReply> reply = HttpGetLoopback(port_, target, kRequestTimeout);
  if (!reply.ok()) return reply.status();
  nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("status")) {
    return absl::DataLossError(absl::StrCat("prometheus ", target, ": HTTP ", reply->status,
                                            ", not an API reply: ", reply->body.substr(0, 300)));
  }
  if (body["status"] != "success") {
    return absl::InvalidArgumentError(absl::StrCat("prometheus ", target, ": HTTP ", reply->status,
                                                   " ", body.value("errorType", "?"), ": ",
                                                   body.value("error", "?")));
  }
  return body["data"];
}

absl::StatusOr<nlohmann::json> PrometheusServer::Query(const std::string& promql,
                                                       absl::Time at) const {
  return Api(absl::StrCat(
      "query?query=", UrlEncode(promql), "&time=",
      absl::StrFormat("%d.%03d", absl::ToUnixMillis(at) / 1000, absl::ToUnixMillis(at) % 1000)));
}

absl::StatusOr<std::vector<std::string>> PrometheusServer::LabelValues(const std::string& selector,
                                                                       const std::string& label,
                                                                       absl::Time start,
                                                                       absl::Time end) const {
  absl::StatusOr<nlohmann::json> data =
      Api(absl::StrCat("label/", label, "/values?match[]=", UrlEncode(selector),
                       "&start=", absl::ToUnixSeconds(start), "&end=", absl::ToUnixSeconds(end)));
  if (!data.ok()) return data.status();
  std::vector<std::string> values;
  if (!data->is_array()) return values;
  for (const nlohmann::json& value : *data) {
    if (value.is_string()) values.push_back(value.get<std::string>());
  }
  return values;
}

absl::StatusOr<std::string> PrometheusServer::Stop(absl::Duration timeout) {
  stopped_ = true;
  absl::Status signalled = program_.Signal(SIGTERM);
  if (!signalled.ok()) return signalled;
  absl::StatusOr<ProgramOutput> output = program_.Wait(timeout);
  if (!output.ok()) return output.status();
  return output->err;
}

}  // namespace nictune::testing_support
