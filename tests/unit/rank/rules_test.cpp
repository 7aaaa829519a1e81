// The rules language: operators, three-valued logic, load-time errors with JSON paths,
// placeholders, merging and applying. The shipped data/rules.json is rules_shipped_test.cpp's.
#include "gpusel/rank/rules.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "gpusel/base/error.hpp"

using namespace gpusel;
using namespace std::string_literals;
using nlohmann::json;

namespace {

json doc_with(const json& when, const json& effects = {{"note", "n"}}) {
  return {{"rules", {{{"id", "r"}, {"fact", "f"}, {"when", when}, {"effects", effects}}}}};
}

// The message of the Error(data) that loading `doc` must throw.
std::string rules_load_error(const json& doc) {
  try {
    parse_rules(doc, "rules.json");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
    return e.what();
  }
  FAIL("expected a load error for " << doc.dump());
  return "";
}

std::optional<bool> eval(const json& when, const Facts& facts) {
  return evaluate(parse_rules(doc_with(when), "t").rules.at(0).when, facts);
}

const Facts kFacts{{"gpu.vram_gb", 24.0}, {"gpu.segment", "consumer"s}, {"gpu.ecc", false},
                   {"config.count", 2.0}, {"config.headroom", 0.075},   {"workload.mode", "lora"s}};

}  // namespace

TEST_CASE("comparison operators on numbers include their boundaries exactly", "[rules]") {
  CHECK(eval({"gpu.vram_gb", "==", 24}, kFacts) == true);
  CHECK(eval({"gpu.vram_gb", "!=", 24}, kFacts) == false);
  CHECK(eval({"gpu.vram_gb", "<", 24}, kFacts) == false);
  CHECK(eval({"gpu.vram_gb", "<=", 24}, kFacts) == true);
  CHECK(eval({"gpu.vram_gb", ">", 23.5}, kFacts) == true);
  CHECK(eval({"gpu.vram_gb", ">=", 24.5}, kFacts) == false);
  CHECK(eval({"config.count", "in", {1, 2, 4}}, kFacts) == true);
  CHECK(eval({"config.count", "not-in", {1, 2, 4}}, kFacts) == false);
}

TEST_CASE("strings compare exactly and booleans with == and !=", "[rules]") {
  CHECK(eval({"gpu.segment", "==", "consumer"}, kFacts) == true);
  CHECK(eval({"gpu.segment", "!=", "consumer"}, kFacts) == false);
  CHECK(eval({"workload.mode", "in", {"lora", "qlora"}}, kFacts) == true);
  CHECK(eval({"workload.mode", "not-in", {"full", "freeze"}}, kFacts) == true);
  CHECK(eval({"gpu.id", "==", "RTX-4090"}, {{"gpu.id", "rtx-4090"s}}) == false);
  CHECK(eval({"gpu.ecc", "==", false}, kFacts) == true);
  CHECK(eval({"gpu.ecc", "!=", false}, kFacts) == false);
}

TEST_CASE("all, any and not follow three-valued logic over unknown facts", "[rules]") {
  const json t{"gpu.ecc", "==", false}, f{"gpu.ecc", "==", true};
  const json u{"workload.long_run", "==", true};  // not in kFacts: unknown
  CHECK(eval(u, kFacts) == std::nullopt);
  CHECK(eval({{"not", u}}, kFacts) == std::nullopt);
  CHECK(eval({{"not", f}}, kFacts) == true);
  CHECK(eval({{"all", {t, t}}}, kFacts) == true);
  CHECK(eval({{"all", {t, u}}}, kFacts) == std::nullopt);
  CHECK(eval({{"all", {u, f}}}, kFacts) == false);
  CHECK(eval({{"any", {f, f}}}, kFacts) == false);
  CHECK(eval({{"any", {f, u}}}, kFacts) == std::nullopt);
  CHECK(eval({{"any", {u, t}}}, kFacts) == true);
  CHECK(eval({{"any", {f, {{"all", {t, {{"not", f}}}}}}}}, kFacts) == true);
}

TEST_CASE("a rule fires only when its condition is known true", "[rules]") {
  RuleSet set = parse_rules(doc_with({{"not", {"workload.long_run", "==", true}}}), "t");
  CHECK(apply_rules(set, kFacts).fired.empty());
  Facts known = kFacts;
  known["workload.long_run"] = false;
  CHECK(apply_rules(set, known).fired == std::vector<std::string>{"r"});
}

TEST_CASE("an unknown fact is a load error with its path and a suggestion", "[rules]") {
  CHECK(rules_load_error(doc_with({"gpu.vrm_gb", ">", 1})) ==
        "rules.json: rules[0].when[0]: unknown fact 'gpu.vrm_gb' (did you mean gpu.vram_gb?)");
  const json nested{{"all", {{"gpu.ecc", "==", true}, {{"not", {"config.cuont", "<", 2}}}}}};
  CHECK(rules_load_error(doc_with(nested)) ==
        "rules.json: rules[0].when.all[1].not[0]: unknown fact 'config.cuont' "
        "(did you mean config.count?)");
  CHECK(rules_load_error(doc_with({"nothing.like.it", "==", 1})).find("did you mean") ==
        std::string::npos);
}

TEST_CASE("type mismatches are load errors, not silently false", "[rules]") {
  CHECK(rules_load_error(doc_with({"gpu.vram_gb", "==", "24"})) ==
        "rules.json: rules[0].when[2]: gpu.vram_gb is a number, got a string \"24\"");
  CHECK_THAT(rules_load_error(doc_with({"gpu.segment", "<", "x"})),
             Catch::Contains("when[1]: operator '<' needs a number, but gpu.segment is a string"));
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", ">=", true})),
             Catch::Contains("needs a number"));
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", "in", {true}})),
             Catch::Contains("use == or !="));
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", "==", 1})),
             Catch::Contains("gpu.ecc is a boolean, got a number"));
  CHECK_THAT(rules_load_error(doc_with({"config.count", "in", {1, "2"}})),
             Catch::Contains("rules[0].when[2][1]: config.count is a number, got a string"));
  CHECK_THAT(rules_load_error(doc_with({"gpu.segment", "==", "datacentre"})),
             Catch::Contains("unknown value 'datacentre' for gpu.segment (did you mean "
                             "datacenter?); expected one of: consumer workstation datacenter"));
}

TEST_CASE("malformed shapes name the JSON path", "[rules]") {
  CHECK_THAT(rules_load_error({{"rule", json::array()}}),
             Catch::Contains("expected an object with a"));
  CHECK_THAT(
      rules_load_error(doc_with(json::array({"gpu.ecc", "=="}))),
      Catch::Contains("rules[0].when: a comparison is [fact, op, value]: 3 elements, got 2"));
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", "=", true})),
             Catch::Contains("rules[0].when[1]: unknown operator '='"));
  CHECK_THAT(rules_load_error(doc_with({"config.count", "in", 2})),
             Catch::Contains("when[2]: 'in' takes a non-empty array"));
  CHECK_THAT(rules_load_error(doc_with({{"all", json::array()}})),
             Catch::Contains("when.all: 'all' takes a non-empty array"));
  CHECK_THAT(rules_load_error(doc_with({{"alll", {{"gpu.ecc", "==", true}}}})),
             Catch::Contains("when: unknown key 'alll' (did you mean all?)"));
  CHECK_THAT(rules_load_error(doc_with({{"all", {}}, {"any", {}}})),
             Catch::Contains("exactly one key"));
  CHECK_THAT(rules_load_error(doc_with("gpu.ecc")), Catch::Contains("got a string"));
  CHECK_THAT(rules_load_error({{"rules", {42}}}),
             Catch::Contains("rules[0]: a rule must be an object"));
}

TEST_CASE("rule fields and effects are checked", "[rules]") {
  json ok = doc_with({"gpu.ecc", "==", true});
  auto edited = [&](auto&& change) {
    json d = ok;
    change(d["rules"][0]);
    return rules_load_error(d);
  };
  CHECK_THAT(edited([](json& r) { r.erase("id"); }), Catch::Contains("rules[0]: missing 'id'"));
  CHECK_THAT(edited([](json& r) { r["id"] = "Bad_Id"; }), Catch::Contains("not kebab-case"));
  CHECK_THAT(edited([](json& r) { r["efects"] = r["effects"]; }),
             Catch::Contains("rules[0]: unknown key 'efects' (did you mean effects?)"));
  CHECK_THAT(edited([](json& r) { r.erase("when"); }), Catch::Contains("missing 'when'"));
  CHECK_THAT(edited([](json& r) { r["effects"] = json::object(); }),
             Catch::Contains("rules[0].effects: needs at least one of"));
  CHECK_THAT(edited([](json& r) {
               r["effects"] = {{"warning", ""}};
             }),
             Catch::Contains("effects.warning: must be a non-empty string"));
  CHECK_THAT(edited([](json& r) {
               r["effects"] = {{"score", {{"budget", -150}}}};
             }),
             Catch::Contains("effects.score.budget: must be a number from -100 to 100"));
  CHECK_THAT(edited([](json& r) {
               r["effects"] = {{"score", {{"compute", -10}}}};
             }),
             Catch::Contains("effects.score.compute: the compute score is measured tokens/s"));
  CHECK_THAT(edited([](json& r) {
               r["effects"] = {{"score", {{"speed", 1}}}};
             }),
             Catch::Contains("unknown key 'speed'"));
  json twice = ok;
  twice["rules"].push_back(ok["rules"][0]);
  CHECK_THAT(rules_load_error(twice),
             Catch::Contains("rules[1].id: duplicate id 'r' (first at rules[0])"));
  json future = ok;
  future["schema_version"] = 2;
  CHECK_THAT(rules_load_error(future), Catch::Contains("unsupported version 2"));
}

TEST_CASE("placeholders are filled with readable values", "[rules]") {
  const Facts f{{"gpu.vram_gb", 24.0},      {"gpu.bf16_tflops", 82.58}, {"gpu.tdp_w", 1008.4},
                {"config.headroom", 0.075}, {"gpu.ecc", false},         {"config.price", 0.25}};
  CHECK(render_text("{gpu.vram_gb} GB, {gpu.bf16_tflops} TFLOPS, {gpu.tdp_w} W", f) ==
        "24 GB, 82.58 TFLOPS, 1008 W");
  CHECK(render_text("{gpu.interconnect_gbs} GB/s", {{"gpu.interconnect_gbs", 112.5}}) ==
        "112.5 GB/s");
  CHECK(render_text("{config.headroom:pct} left, {config.price:pct}", f) == "7.5% left, 25%");
  CHECK(render_text("ECC {gpu.ecc}; long {workload.long_run}", f) == "ECC no; long ?");
  CHECK(render_text("{{literal}} {gpu.vram_gb}", f) == "{literal} 24");
  CHECK(format_fact(true) == "yes");
  CHECK(format_fact("sm_89"s) == "sm_89");
}

TEST_CASE("bad placeholders fail at load time", "[rules]") {
  CHECK(rules_load_error(doc_with({"gpu.ecc", "==", true}, {{"warning", "{gpu.vram} GB"}})) ==
        "rules.json: rules[0].effects.warning: unknown fact '{gpu.vram}' in the text "
        "(did you mean gpu.vram_gb?)");
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", "==", true}, {{"note", "oops {gpu.ecc"}})),
             Catch::Contains("effects.note: unclosed '{'"));
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", "==", true}, {{"exclude", "{gpu.ecc:pc}"}})),
             Catch::Contains("effects.exclude: unknown format ':pc'"));
  CHECK_THAT(rules_load_error(doc_with({"gpu.ecc", "==", true}, {{"note", "a } b"}})),
             Catch::Contains("stray '}'"));
}

TEST_CASE("apply_rules collects messages, sums scores and keeps the first exclusion", "[rules]") {
  const json doc = json::parse(R"({"rules": [
    {"id": "a", "fact": "f", "source": "https://a", "when": ["gpu.ecc", "==", false],
     "effects": {"warning": "{gpu.vram_gb} GB", "score": {"budget": -10, "ecosystem": -5}}},
    {"id": "b", "fact": "f", "when": ["config.count", ">", 1],
     "effects": {"note": "n", "exclude": "first", "score": {"budget": 2}}},
    {"id": "c", "fact": "f", "when": ["config.count", ">", 5], "effects": {"exclude": "never"}},
    {"id": "d", "fact": "f", "when": ["gpu.vram_gb", ">", 1], "effects": {"exclude": "second"}}
  ]})");
  const RuleOutcome out = apply_rules(parse_rules(doc, "t"), kFacts);
  CHECK(out.fired == std::vector<std::string>{"a", "b", "d"});
  REQUIRE(out.warnings.size() == 1);
  CHECK(out.warnings[0].rule_id == "a");
  CHECK(out.warnings[0].text == "24 GB");
  CHECK(out.warnings[0].source == "https://a");
  REQUIRE(out.notes.size() == 1);
  CHECK(out.notes[0].rule_id == "b");
  CHECK(out.delta == ScoreDelta{-8, -5});
  CHECK(out.excluded);
  CHECK(out.exclude_rule == "b");
  CHECK(out.exclude_reason == "first");
}

TEST_CASE("malformed facts are a programming error", "[rules]") {
  RuleSet set = parse_rules(doc_with({"gpu.ecc", "==", true}), "t");
  CHECK_THROWS_AS(apply_rules(set, {{"gpu.eccc", true}}), std::invalid_argument);
  CHECK_THROWS_AS(apply_rules(set, {{"gpu.ecc", 1.0}}), std::invalid_argument);
  CHECK_NOTHROW(check_facts(kFacts));
}

TEST_CASE("merge replaces rules by id in place, appends new ones, and can disable", "[rules]") {
  const json base = json::parse(R"({"rules": [
    {"id": "a", "fact": "f", "when": ["gpu.ecc", "==", false], "effects": {"note": "base a"}},
    {"id": "b", "fact": "f", "when": ["gpu.ecc", "==", false], "effects": {"note": "base b"}}]})");
  const json extra = json::parse(R"({"rules": [
    {"id": "c", "fact": "f", "when": ["gpu.ecc", "==", false], "effects": {"note": "new c"}},
    {"id": "a", "fact": "f", "when": ["gpu.ecc", "==", false], "effects": {"note": "user a"}},
    {"id": "b", "disabled": true}]})");
  RuleSet set = parse_rules(base, "base");
  merge_rules(set, parse_rules(extra, "mine.json"));
  REQUIRE(set.rules.size() == 3);
  CHECK(set.rules[0].id == "a");
  CHECK(set.rules[0].origin == "mine.json");
  CHECK(set.rules[2].id == "c");
  const RuleOutcome out = apply_rules(set, kFacts);
  CHECK(out.fired == std::vector<std::string>{"a", "c"});
  CHECK(out.notes.at(0).text == "user a");
}

TEST_CASE("load_rules merges user files and names the file at fault", "[rules]") {
  const std::string path = "/tmp/gpusel_rules_test_user.json";
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(R"({"rules": [{"id": "team-no-consumer", "fact": "policy",
    "when": ["gpu.segment", "==", "consumer"], "effects": {"exclude": "team policy"}}]})");
  const RuleSet set = load_rules("", {path});
  REQUIRE(set.find("team-no-consumer") != nullptr);
  CHECK(set.rules.size() > 1);  // the embedded rules are still there
  write(R"({"rules": [{"id": "x", "fact": "f", "when": ["gpu.vrm_gb", ">", 1],
    "effects": {"note": "n"}}]})");
  CHECK_THROWS_WITH(load_rules("", {path}),
                    path +
                        ": rules[0].when[0]: unknown fact 'gpu.vrm_gb' (did you mean "
                        "gpu.vram_gb?)");
  write("{\"rules\": [\n  {\"id\": \"x\",}\n]}");
  CHECK_THROWS_WITH(load_rules("", {path}), Catch::StartsWith(path + ":2:"));
  std::remove(path.c_str());
  CHECK_THROWS_AS(load_rules("", {path}), Error);
}

TEST_CASE("FactId follows the vocabulary's order, and a table and a map say the same", "[rules]") {
  // The ranker fills a FactTable by FactId: an enumerator out of step with the vocabulary
  // would put a fact under another fact's name.
  const std::vector<std::pair<FactId, std::string>> some{
      {FactId::gpu_id, "gpu.id"},
      {FactId::gpu_vram_gb, "gpu.vram_gb"},
      {FactId::gpu_used_price, "gpu.used_price"},
      {FactId::config_count, "config.count"},
      {FactId::config_platform_priced, "config.platform_priced"},
      {FactId::workload_timed, "workload.timed"},
      {FactId::workload_mode, "workload.mode"},
      {FactId::workload_long_run, "workload.long_run"},
      {FactId::workload_batch, "workload.batch"},
      {FactId::workload_engine, "workload.engine"},
      {FactId::config_engine_runs, "config.engine_runs"},
      {FactId::config_whole_boards, "config.whole_boards"},
      {FactId::config_board_sizes, "config.board_sizes"},
      {FactId::config_engine, "config.engine"},
      {FactId::workload_weights_format, "workload.weights_format"},
      {FactId::config_weights_kernel, "config.weights_kernel"},
      {FactId::config_engine_as, "config.engine_as"},
      {FactId::workload_experts_in_ram, "workload.experts_in_ram"},
      {FactId::config_host_ram_gb, "config.host_ram_gb"},
      {FactId::config_host_ram_short_gb, "config.host_ram_short_gb"},
      {FactId::config_own_host_ram_short_gb, "config.own_host_ram_short_gb"},
      {FactId::gpu_market, "gpu.market"},
      {FactId::config_market, "config.market"},
      {FactId::gpu_tpp, "gpu.tpp"},
      {FactId::config_job_days, "config.job_days"},
      {FactId::workload_reserve_given, "workload.reserve_given"}};
  for (const auto& [id, name] : some) CHECK(fact_vocabulary()[std::size_t(id)].name == name);
  REQUIRE(fact_vocabulary().size() == kFactCount);
  CHECK(std::size_t(FactId::workload_reserve_given) + 1 == kFactCount);
  for (std::size_t i = 0; i < kFactCount; ++i) CHECK(fact_index(fact_vocabulary()[i]) == i);

  const FactTable t = to_table(kFacts);
  CHECK(to_facts(t) == kFacts);
  for (const json& when : {json{"gpu.vram_gb", ">=", 24}, json{"gpu.segment", "==", "consumer"},
                           json{"gpu.ecc", "==", true}, json{"workload.long_run", "==", true}})
    CHECK(evaluate(parse_rules(doc_with(when), "t").rules.at(0).when, t) == eval(when, kFacts));
  CHECK(render_text("{gpu.vram_gb} GB, {config.headroom:pct}, {workload.long_run}", t) ==
        render_text("{gpu.vram_gb} GB, {config.headroom:pct}, {workload.long_run}", kFacts));
  CHECK_THROWS_AS(to_table({{"gpu.ecc", 1.0}}), std::invalid_argument);
}
