// Tying a reported device name to a catalog card. Tools and the catalog spell names
// differently ("NVIDIA A100-SXM4-80GB" / "NVIDIA A100 80GB SXM", "Intel(R) Arc(TM) A770
// Graphics" / "Intel Arc A770 16GB", rocm-smi's "Navi 31 [Radeon RX 7900 XT/7900 XTX]"), so
// both are reduced to their model words; memory and core counts then pick the variant.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "gpusel/base/text.hpp"
#include "gpusel/data/card_memory.hpp"
#include "gpusel/host/detect.hpp"
#include "host_internal.hpp"

namespace gpusel {

using namespace host_detail;

namespace {

// Words that name a vendor, brand, architecture, memory type or market rather than a model.
const std::set<std::string>& noise() {
  static const std::set<std::string> n{
      "nvidia",      "geforce", "tesla",       "amd",    "ati",       "radeon",   "rx",
      "intel",       "huawei",  "apple",       "r",      "tm",        "graphics", "gpu",
      "generation",  "edition", "workstation", "ada",    "blackwell", "hopper",   "grace",
      "superchip",   "china",   "cn",          "hgx",    "per",       "part",     "instinct",
      "corporation", "inc",     "x",           "oam",    "hbm",       "hbm2",     "hbm2e",
      "hbm3",        "hbm3e",   "gddr6",       "gddr6x", "gddr7",     "card",     "series",
      "board",       "module",  "apu"};
  return n;
}

struct Key {
  std::set<std::string> model, form;
  std::optional<int> cores;
};

bool numeric(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789.") == std::string::npos;
}

std::vector<std::string> raw_words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : to_lower(text)) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || ch == '.') {
      cur += ch;
      continue;
    }
    if (!cur.empty()) out.push_back(cur), cur.clear();
    if (ch == '+') out.push_back("plus");
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool memory_word(const std::string& w) {  // "80gb", "48g", "24gb"
  std::size_t i = 0;
  while (i < w.size() && (std::isdigit(static_cast<unsigned char>(w[i])) || w[i] == '.')) ++i;
  return i > 0 && (w.substr(i) == "gb" || w.substr(i) == "g");
}

Key key_of(const std::string& text) {
  Key k;
  std::vector<std::string> kept;
  for (const auto& w : raw_words(text)) {
    if ((w == "gb" || w == "core" || w == "cores") && !kept.empty() && numeric(kept.back())) {
      if (w != "gb") k.cores = std::stoi(kept.back());
      kept.pop_back();
    } else if (memory_word(w) || noise().count(w)) {
      continue;
    } else if (w.rfind("sxm", 0) == 0 && (w.size() == 3 || numeric(w.substr(3)))) {
      k.form.insert("sxm");
    } else if (w == "pcie") {
      k.form.insert("pcie");
    } else {
      kept.push_back(w);
    }
  }
  k.model.insert(kept.begin(), kept.end());
  return k;
}

// The text outside brackets, and each '/'-separated alternative inside [...] and (...).
std::vector<std::string> name_variants(const std::string& name) {
  std::vector<std::string> out{""};
  std::string inner;
  int depth = 0;
  for (char c : name) {
    if (c == '[' || c == '(') {
      if (depth++ == 0) inner.clear();
      continue;
    }
    if ((c == ']' || c == ')') && depth > 0) {
      if (--depth == 0)
        for (const auto& alt : split(inner, '/')) out.push_back(alt);
      continue;
    }
    (depth > 0 ? inner : out.front()) += c;
  }
  return out;
}

// Every spelling's key; `cores` picks up a "(76-core GPU)" that names no model by itself.
std::vector<Key> keys_of(const std::vector<std::string>& names,
                         std::optional<int>* cores = nullptr) {
  std::vector<Key> out;
  for (const auto& n : names)
    for (const auto& v : name_variants(n)) {
      Key k = key_of(v);
      if (k.cores && cores) *cores = k.cores;
      if (!k.model.empty()) out.push_back(std::move(k));
    }
  return out;
}

std::vector<Key> catalog_keys(const Gpu& g) {
  std::string id = g.id;
  std::replace(id.begin(), id.end(), '-', ' ');
  std::optional<int> cores;
  std::vector<Key> keys = keys_of({g.name, id}, &cores);
  for (auto& k : keys) k.cores = cores;
  return keys;
}

// 0 best; -1 no match. NVIDIA's driver names PCIe boards as such ("A100-PCIE-40GB", "H100
// PCIe"), so a name without a form factor is the SXM module rather than the PCIe card.
int form_penalty(const std::set<std::string>& reported, const std::set<std::string>& card) {
  if (!reported.empty() && !card.empty()) return reported == card ? 0 : -1;
  if (reported.empty() && card.count("pcie")) return 2;
  return reported.empty() && card.empty() ? 0 : 1;
}

std::string gib_text(double bytes) {
  return std::to_string(static_cast<long>(std::lround(bytes / (1024.0 * kMiB)))) + " GiB";
}

struct HostVerdict {
  int penalty = -1;    // -1: the name does not match
  std::string reason;  // when the name matches but memory or cores do not
};

HostVerdict judge(const Device& d, const std::vector<Key>& reported, const Gpu& g) {
  int best = -1;
  std::optional<int> card_cores;
  for (const auto& c : catalog_keys(g)) {
    card_cores = c.cores;
    for (const auto& r : reported) {
      if (r.model != c.model) continue;
      const int p = form_penalty(r.form, c.form);
      if (p >= 0 && (best < 0 || p < best)) best = p;
    }
  }
  if (best < 0) return {};
  if (d.total_bytes) {
    const double card = vram_bytes(g);
    if (std::abs(*d.total_bytes - card) > 0.10 * card)
      return {-1, g.id + " has " + gib_text(card) + ", this one " + gib_text(*d.total_bytes)};
  }
  if (d.cores && card_cores && *d.cores != *card_cores)
    return {-1, g.id + " has " + std::to_string(*card_cores) + " GPU cores, this one " +
                    std::to_string(*d.cores)};
  return {best, ""};
}

std::string squash(const std::string& s) {
  std::string out;
  for (const auto& w : raw_words(s)) out += w;
  return out;
}

bool match_alias(Device& d, const Catalog& cat, const std::vector<DeviceAlias>& aliases) {
  for (const auto& a : aliases) {
    if (a.tool != d.tool || squash(a.reported) != squash(d.name)) continue;
    const Gpu* g = cat.find(a.gpu);
    if (!g) continue;
    if (d.total_bytes && std::abs(*d.total_bytes - vram_bytes(*g)) > 0.10 * vram_bytes(*g)) {
      d.match = "named as " + g->id + " (data/device_names.json), but " + g->id + " has " +
                gib_text(vram_bytes(*g)) + " and this one " + gib_text(*d.total_bytes);
      return true;
    }
    d.gpu = g;
    d.match = "by the name the tool gives it (data/device_names.json: " + a.source + ")";
    return true;
  }
  return false;
}

}  // namespace

void match_device(Device& d, const Catalog& catalog, const std::vector<DeviceAlias>& aliases) {
  d.gpu = nullptr;
  d.candidates.clear();
  if (match_alias(d, catalog, aliases)) return;
  std::vector<std::string> names{d.name};
  names.insert(names.end(), d.other_names.begin(), d.other_names.end());
  const std::vector<Key> reported = keys_of(names);
  int best = -1;
  std::vector<std::string> reasons;
  for (const auto& g : catalog.gpus) {
    if (!d.vendor.empty() && g.vendor != d.vendor) continue;
    const HostVerdict v = judge(d, reported, g);
    if (!v.reason.empty()) reasons.push_back(v.reason);
    if (v.penalty < 0 || (best >= 0 && v.penalty > best)) continue;
    if (v.penalty < best || best < 0) d.candidates.clear();
    best = v.penalty;
    d.candidates.push_back(&g);
  }
  if (d.candidates.size() == 1) {
    d.gpu = d.candidates.front();
    d.candidates.clear();
    d.match = d.total_bytes ? "by name and memory" : "by name (the tool reports no memory size)";
  } else if (d.candidates.size() > 1) {
    d.match = "ambiguous:";
    for (const auto* g : d.candidates) d.match += " " + g->id;
  } else {
    d.match = "not in the catalog";
    for (std::size_t i = 0; i < reasons.size(); ++i) d.match += (i ? "; " : ": ") + reasons[i];
  }
}

}  // namespace gpusel
