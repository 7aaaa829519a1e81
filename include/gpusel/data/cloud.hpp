#pragma once
// Cloud rental offers: parsed, typed records of data/cloud.json (see
// data/schema/cloud.schema.json for each field's unit and convention).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpusel/data/catalog.hpp"

namespace gpusel {

// Hours in an average month (8760 / 12): converts monthly prices to hourly ones.
constexpr double kHoursPerMonth = 730.0;

// A documented default (cloud defaults, owning costs) with the range its sources span:
// value within [low, high].
struct Figure {
  double value = 0, low = 0, high = 0;
  std::string unit, source, as_of;
  bool operator==(const Figure&) const = default;
};

// Error(data) naming `at` when the value lies outside its own range.
void check_figure_range(const Figure& f, const std::string& at);

// A Figure from its JSON form {value, range: [low, high], unit, source, as_of}, range-checked;
// the document has passed its schema, so the fields exist with their types.
Figure parse_figure(const nlohmann::json& j, const std::string& at);

struct CloudDefaults {
  Figure spot_ratio;                        // spot / on-demand
  std::optional<Figure> spot_availability;  // share of the time spot capacity exists
  Figure commit_1y_discount;                // 1 - committed / on-demand
  Figure commit_3y_discount;
  Figure storage_per_gb_month;  // USD
  Figure egress_per_gb;         // USD
  // Gbit/s per instance over TCP between separate instances of an offer that publishes no
  // network; absent in a file without it (instance_network() then uses the embedded one's).
  std::optional<Figure> instance_network;
  bool operator==(const CloudDefaults&) const = default;
};

// The network between separate instances of one offer: what a job spanning them talks over.
struct InstanceNetwork {
  double gbps = 0;    // line rate per instance, each direction
  bool rdma = false;  // GPUDirect RDMA (EFA, InfiniBand); false: NCCL over TCP sockets
  std::string source, as_of, notes;
  bool published = false;  // the offer's own figure, not defaults.instance_network
  // GPUs of one NVLink domain the instances share (a GB200 NVL72 rack sold as 4-GPU
  // instances); 0: none. Instances within it talk over NVLink, not the network.
  int nvlink_domain = 0;
  bool operator==(const InstanceNetwork&) const = default;
};

// Every price is for the whole instance, in `currency`. Some providers list a GPU only as
// spot (interruptible) capacity: such an offer has a spot price and no on-demand one, and is
// never used where gpusel prices work that must run uninterrupted (see spot_only()).
struct Offer {
  std::string id, provider, offer, gpu, region, currency, billing, as_of, source, notes;
  int gpus_per_instance = 1;
  std::optional<double> on_demand_per_hour;  // nullopt: a spot-only offer
  std::optional<double> spot_per_hour, monthly, commit_1y_per_hour, commit_3y_per_hour;
  bool marketplace = false;
  std::optional<InstanceNetwork> network;  // as the provider publishes it
  bool spot_only() const { return !on_demand_per_hour; }
  bool operator==(const Offer&) const = default;
};

struct Cloud {
  std::string origin;  // "embedded data/cloud.json" or a path, for messages
  std::string reviewed;
  CloudDefaults defaults;
  bool has_defaults = true;  // false for an overlay without a "defaults" object
  std::vector<Offer> offers;

  // By id, through a hash index (rebuilt when the list's size changed; call reindex() after
  // changing ids in place).
  const Offer* find(std::string_view id) const;
  std::vector<const Offer*> for_gpu(std::string_view gpu_id) const;
  void reindex() const;
  bool operator==(const Cloud& o) const {
    return origin == o.origin && reviewed == o.reviewed && defaults == o.defaults &&
           has_defaults == o.has_defaults && offers == o.offers;
  }

 private:
  mutable std::unordered_map<std::string, std::size_t> index_;
};

// The offer's own network, else the file's defaults.instance_network, else the embedded
// data/cloud.json's (a user's file may predate the field).
// An offer that gives only its NVLink domain takes the default's rate beyond it.
InstanceNetwork instance_network(const Offer& o, const CloudDefaults& d);

// Parses a cloud document. Throws Error(data) naming origin and offer on a missing or
// mistyped field, a negative or zero on-demand price, an offer with neither an on-demand nor
// a spot price, a negative other price, a malformed
// date or a default outside its own range. `overlay`: "defaults" and "reviewed" may be
// absent (an --cloud-add file usually carries offers only).
Cloud parse_cloud(const nlohmann::json& doc, const std::string& origin, bool overlay = false);

// Same id replaces in place, new ids append; an overlay's defaults replace the base's.
void merge_cloud(Cloud& base, const Cloud& overlay);

// Error(data) naming the offer for a GPU id the catalog lacks, with a suggestion.
void check_offer_gpus(const Cloud& cloud, const Catalog& catalog);

// Removes offers whose GPU the catalog lacks: the embedded offers follow the embedded catalog,
// so a user's own (smaller) catalog keeps only the offers it can name. Returns how many.
std::size_t drop_offers_without_gpu(Cloud& cloud, const Catalog& catalog);

struct CloudPaths {
  std::string cloud;                   // replaces data/cloud.json when set
  std::vector<std::string> cloud_add;  // overlays, applied in order
};

// The embedded offers, or `paths.cloud`, with every overlay merged in.
Cloud load_cloud(const CloudPaths& paths);
// One file ("" = the embedded one), parsed as a base or as an overlay. A user's file is
// checked as `catalog validate` checks it (its GPU ids against `catalog` when given) and
// refused with Error(data) "file:line:col: ..." at its first error.
Cloud load_cloud_file(const std::string& path, bool overlay, const Catalog* catalog = nullptr);
// The same from text already read; `trusted`: the embedded file, read without the schema.
Cloud cloud_from_text(std::string_view text, const std::string& origin, bool overlay,
                      const Catalog* catalog, bool trusted = false);

enum class RentKind { on_demand, spot, monthly, commit_1y, commit_3y };
const char* rent_kind_name(RentKind k);  // "on-demand", "spot", "monthly", "commit-1y", ...

// An instance's price under one kind of rental, in the offer's currency.
struct EffectivePrice {
  double per_hour = 0;     // monthly: the monthly price / 730 h
  bool published = false;  // false: derived from on-demand and a data default
  std::string basis;       // "published", "default: 0.40 x on-demand", "default: 37 % off .."
};

// Published where the offer has it, else on-demand x the default (spot, commitments);
// nullopt for a monthly price the offer does not publish (there is no default for it), and
// for on-demand and unpublished commitments of a spot-only offer (nothing to derive them from).
std::optional<EffectivePrice> effective_price(const Offer& o, RentKind kind,
                                              const CloudDefaults& d);

}  // namespace gpusel
