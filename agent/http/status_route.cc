// SPDX-License-Identifier: Apache-2.0
#include "agent/http/status_route.h"

#include <string>
#include <utility>

#include "agent/http/actuation_json.h"
#include "agent/model/json_text.h"
#include "agent/model/source.h"
#include "agent/service/time_json.h"
#include "nlohmann/json.hpp"
#include "tuner/knob.h"

namespace nictune::http {
namespace {

nlohmann::json SourcesJson(const std::vector<model::SourceState>& sources) {
  nlohmann::json out = nlohmann::json::array();
  for (const model::SourceState& s : sources) {
    out.push_back({{"name", s.name},
                   {"kind", std::string(model::SourceName(s.source))},
                   {"in_use", s.in_use},
                   {"detail", s.detail}});
  }
  return out;
}

nlohmann::json OtherTunersJson(const std::vector<observe::OtherTuner>& tuners) {
  nlohmann::json out = nlohmann::json::array();
  for (const observe::OtherTuner& t : tuners) {
    out.push_back({{"name", t.name}, {"pid", t.pid}, {"overlap", t.overlap}});
  }
  return out;
}

nlohmann::json KnobChangesJson(const service::ServiceStatus& status) {
  nlohmann::json latest = nlohmann::json::array();
  for (const service::KnobChange& c : status.knob_changes) {
    latest.push_back({{"knob", std::string(tuner::KnobName(c.knob))},
                      {"target", c.target},
                      {"from", c.from},
                      {"to", c.to},
                      {"seen", service::TimeJson(c.seen)}});
  }
  return {{"total", status.knob_changes_total}, {"latest", std::move(latest)}};
}

nlohmann::json HeldChangesJson(const std::vector<service::HeldChange>& held) {
  nlohmann::json out = nlohmann::json::array();
  for (const service::HeldChange& c : held) {
    nlohmann::json change = HeldJson(c.held);
    change["since"] = service::TimeJson(c.since);
    out.push_back(std::move(change));
  }
  return out;
}

nlohmann::json BpfJson(const service::BpfHealth& bpf,
                       const std::vector<driver::MapPressure>& maps) {
  nlohmann::json programs = nlohmann::json::array();
  for (const driver::ProbeStatus& p : bpf.programs) {
    programs.push_back({{"name", p.name},
                        {"attach_type", p.attach_type},
                        {"attached", p.attached},
                        {"waiting", p.waiting},
                        {"reason", p.reason}});
  }
  nlohmann::json map_pressure = nlohmann::json::array();
  for (const driver::MapPressure& m : maps) {
    map_pressure.push_back({{"map", m.map},
                            {"entries", m.entries},
                            {"capacity", m.capacity},
                            {"no_room", m.no_room},
                            {"pruned", m.pruned}});
  }
  return {{"in_use", bpf.in_use},
          {"why_not", bpf.why_not},
          {"programs", std::move(programs)},
          {"maps", std::move(map_pressure)}};
}

}  // namespace

nlohmann::json StatusJson(const service::ServiceStatus& status, absl::Time now) {
  const service::ServiceConfig& config = status.config;
  const service::SamplingHealth& sampling = status.sampling;
  const service::StoreHealth& store = status.store;
  return {
      {"version", config.version},
      {"mode", std::string(service::ModeName(config.mode))},
      {"mode_note", std::string(service::ModeNote(config.mode))},
      {"on_exit", std::string(service::OnExitName(config.on_exit))},
      {"started", service::TimeJson(config.started)},
      {"uptime_s", absl::ToDoubleSeconds(now - config.started)},
      {"interval_s", absl::ToDoubleSeconds(config.interval)},
      {"window_s", absl::ToDoubleSeconds(config.window)},
      {"listen", config.listen},
      {"socket", config.socket_path},
      {"sources", SourcesJson(sampling.sources)},
      {"bpf", BpfJson(status.bpf, sampling.bpf_maps)},
      {"sampling",
       {{"samples", sampling.samples},
        {"failed_samples", sampling.failed_samples},
        {"missed_intervals", sampling.missed_intervals},
        {"windows", sampling.windows},
        {"last_sample", service::TimeJson(sampling.last_sample)},
        {"last_sampling_seconds", sampling.last_sampling_seconds},
        {"last_error", sampling.last_error}}},
      {"store",
       {{"configured", store.configured},
        {"healthy", store.configured && store.healthy},
        {"errors", store.errors},
        {"last_error", store.last_error},
        {"last_error_time", service::TimeJson(store.last_error_time)},
        {"path", store.path}}},
      {"other_tuners", OtherTunersJson(status.other_tuners)},
      {"knobs_changed_by_others", KnobChangesJson(status)},
      {"other_tuners_unknown", status.other_tuners_unknown},
      {"held", HeldChangesJson(status.held)},
  };
}

absl::Status AddStatusRoute(Router& router, const service::ServiceState& state,
                            std::function<absl::Time()> now) {
  return router.Add("GET", "/api/v1/status", Effect::kReadsOnly,
                    [&state, now = std::move(now)](const Request&) {
                      return Response{.body = model::JsonText(StatusJson(state.Status(), now()))};
                    });
}

}  // namespace nictune::http
