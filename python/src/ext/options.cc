// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "options.h"

#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "args.h"
#include "errors.h"
#include "plush/status.h"

namespace py = pybind11;

namespace plush::python {
namespace {

using Setter = std::function<void(Options*, py::handle)>;

// Sets a plain field (bool or integer) from a Python value.
template <auto kField>
void SetField(Options* options, py::handle value) {
  using T = std::remove_cvref_t<decltype(options->*kField)>;
  options->*kField = value.cast<T>();
}

// Sets an enumeration field from its name.
template <auto kField, typename Enum>
Setter EnumSetter(std::map<std::string, Enum> names) {
  return [names = std::move(names)](Options* options, py::handle value) {
    auto name = value.cast<std::string>();
    auto it = names.find(name);
    if (it == names.end()) {
      std::string choices;
      for (const auto& [choice, ignored] : names) {
        choices += (choices.empty() ? "'" : ", '") + choice + "'";
      }
      ThrowIfError(Status::InvalidArgument("unknown value '" + name +
                                           "'; expected one of " + choices));
    }
    options->*kField = it->second;
  };
}

// The key sample of a range pool: an iterable of keys (bytes-like).
void SetKeySample(Options* options, py::handle value) {
  if (py::isinstance<py::bytes>(value) || py::isinstance<py::str>(value))
    throw py::cast_error();  // an iterable of keys, not one key
  options->range_key_sample.clear();
  for (py::handle key : py::iter(value)) {
    options->range_key_sample.push_back(
        BytesArg(key, "open()", "range_key_sample item"));
  }
}

// One entry per field of Options.
const std::map<std::string, Setter>& Setters() {
  static const auto* setters = new std::map<std::string, Setter>{
      {"create_if_missing", SetField<&Options::create_if_missing>},
      {"error_if_exists", SetField<&Options::error_if_exists>},
      {"backend",
       EnumSetter<&Options::backend, Backend>({{"auto", Backend::kAuto},
                                               {"file", Backend::kFile},
                                               {"pmem", Backend::kPmem}})},
      {"required_granularity",
       EnumSetter<&Options::required_granularity, Granularity>(
           {{"byte", Granularity::kByte},
            {"cache-line", Granularity::kCacheLine},
            {"page", Granularity::kPage}})},
      {"recovery_threads", SetField<&Options::recovery_threads>},
      {"background_threads", SetField<&Options::background_threads>},
      {"range_rebalance", SetField<&Options::range_rebalance>},
      {"power_fail_safe", SetField<&Options::power_fail_safe>},
      {"initial_pool_size", SetField<&Options::initial_pool_size>},
      {"max_pool_size", SetField<&Options::max_pool_size>},
      {"partitioning",
       EnumSetter<&Options::partitioning, Partitioning>(
           {{"hash", Partitioning::kHash}, {"range", Partitioning::kRange}})},
      {"range_key_sample", SetKeySample},
      {"dram_directory_bits", SetField<&Options::dram_directory_bits>},
      {"fanout_bits", SetField<&Options::fanout_bits>},
      {"first_level_fanout_bits", SetField<&Options::first_level_fanout_bits>},
      {"preallocated_levels", SetField<&Options::preallocated_levels>},
      {"dram_filter_levels", SetField<&Options::dram_filter_levels>},
      {"log_count", SetField<&Options::log_count>},
      {"log_chunk_size", SetField<&Options::log_chunk_size>},
      {"log_chunks_per_log", SetField<&Options::log_chunks_per_log>},
      {"payload_log_count", SetField<&Options::payload_log_count>},
      {"payload_chunk_size", SetField<&Options::payload_chunk_size>},
  };
  return *setters;
}

// Calls set(value), turning a failed conversion into a TypeError that
// names the option.
template <typename SetFn>
void Apply(const std::string& name, py::handle value, SetFn set) {
  try {
    set(value);
  } catch (const py::cast_error&) {
    throw py::type_error("open(): bad value for " + name + ": " +
                         std::string(py::repr(value)));
  }
}

// The creation parameters, as named in Stats, with their value in Options
// as Stats spells it.
std::vector<std::pair<std::string, std::string>> CreationParameters(
    const Options& o) {
  return {
      {"partitioning", o.partitioning == Partitioning::kRange ? "range" : "hash"},
      {"dram_directory_bits", std::to_string(o.dram_directory_bits)},
      {"fanout_bits", std::to_string(o.fanout_bits)},
      {"first_level_fanout_bits", std::to_string(o.first_level_fanout_bits)},
      {"preallocated_levels", std::to_string(o.preallocated_levels)},
      {"dram_filter_levels", std::to_string(o.dram_filter_levels)},
      {"log_count", std::to_string(o.log_count)},
      {"log_chunk_size", std::to_string(o.log_chunk_size)},
      {"log_chunks_per_log", std::to_string(o.log_chunks_per_log)},
      {"payload_log_count", std::to_string(o.payload_log_count)},
      {"payload_chunk_size", std::to_string(o.payload_chunk_size)},
  };
}

}  // namespace

void CheckCreationParameters(const py::kwargs& kwargs, const Options& options,
                             const py::dict& stats, const std::string& path) {
  for (const auto& [name, wanted] : CreationParameters(options)) {
    // Only what the caller named: small=True picks the parameters of a pool
    // being created, and an existing pool keeps its own (documented).
    if (!kwargs.contains(name.c_str())) continue;
    // A pool without payload logs records no payload chunk size.
    if (name == "payload_chunk_size" &&
        py::int_(stats["payload_log_count"]).cast<uint64_t>() == 0) {
      continue;
    }
    const std::string actual = py::str(stats[name.c_str()]);
    if (actual == wanted) continue;
    ThrowIfError(Status::InvalidArgument(
        "pool '" + path + "' exists with " + name + "=" + actual +
        "; open() was asked for " + wanted +
        " (creation parameters apply only when a pool is created)"));
  }
}

Options OptionsFromKwargs(const py::kwargs& kwargs) {
  // The profile first, so that explicit arguments override its values.
  bool small = false;
  if (kwargs.contains("small")) {
    Apply("small", kwargs["small"],
          [&](py::handle value) { small = value.cast<bool>(); });
  }
  Options options = small ? Options::SmallProfile() : Options();
  for (const auto& [key, value] : kwargs) {
    auto name = key.cast<std::string>();
    if (name == "small") continue;
    auto it = Setters().find(name);
    if (it == Setters().end()) {
      throw py::type_error("open() got an unexpected keyword argument '" +
                           name + "'");
    }
    Apply(name, value, [&](py::handle v) { it->second(&options, v); });
  }
  return options;
}

}  // namespace plush::python
