// SPDX-License-Identifier: Apache-2.0
// A real Prometheus server (the Debian package's /usr/bin/prometheus) for end-to-end tests: a
// generated config that scrapes one loopback target and loads the given rule files, its TSDB
// and config in a directory the caller owns, listening on a free loopback port. Stopped (and
// killed if it will not stop) when the object goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"

namespace nictune::testing_support {

inline constexpr char kPrometheusBinary[] = "/usr/bin/prometheus";

struct PrometheusOptions {
  std::string directory;  // holds prometheus.yml and the TSDB; the caller removes it
  std::string job_name = "nictune";
  uint16_t target_port = 0;  // scraped at 127.0.0.1:<target_port>/metrics
  absl::Duration scrape_interval = absl::Seconds(1);
  absl::Duration evaluation_interval = absl::Seconds(1);  // rule groups without their own
  std::vector<std::string> rule_files;                    // absolute paths
};

class PrometheusServer {
 public:
  // Starts the server and waits (up to `ready_timeout`) for /-/ready; on failure the error
  // carries the end of Prometheus's log.
  static absl::StatusOr<std::unique_ptr<PrometheusServer>> Start(const PrometheusOptions& options,
                                                                 absl::Duration ready_timeout);
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;
  ~PrometheusServer();

  uint16_t port() const { return port_; }
  std::string target() const;  // "127.0.0.1:<target_port>", the instance label it scrapes

  // GET /api/v1/<path_and_query>: the reply's "data" when its status is "success", else an
  // error naming the request and Prometheus's errorType/error.
  absl::StatusOr<nlohmann::json> Api(const std::string& path_and_query) const;

  // An instant query evaluated at `at`: the "data" object (resultType, result).
  absl::StatusOr<nlohmann::json> Query(const std::string& promql, absl::Time at) const;

  // The values of `label` over the series matching `selector` between `start` and `end` (what
  // Grafana's label_values(selector, label) lists).
  absl::StatusOr<std::vector<std::string>> LabelValues(const std::string& selector,
                                                       const std::string& label, absl::Time start,
                                                       absl::Time end) const;

  // Stops the server (SIGTERM, then SIGKILL after `timeout`) and returns its log.
  absl::StatusOr<std::string> Stop(absl::Duration timeout);

 private:
  PrometheusServer(PrometheusOptions options, uint16_t port, BackgroundProgram program)
      : options_(std::move(options)), port_(port), program_(std::move(program)) {}

  PrometheusOptions options_;
  uint16_t port_ = 0;
  BackgroundProgram program_;
  bool stopped_ = false;
};

}  // namespace nictune::testing_support
