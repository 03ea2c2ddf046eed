// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Command-line pieces (CLI11) that plush-bench and the plush CLI share, so
// that both spell choices and report usage errors alike.

#ifndef PLUSH_TOOLS_COMMON_COMMAND_LINE_H_
#define PLUSH_TOOLS_COMMON_COMMAND_LINE_H_

#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plush/options.h"

namespace plush::tools {

// Adds an option whose value is one of the names in `choices` (in any
// case), stored in *out as the matching value. --help lists the names and
// the name of *out's current value as the default.
template <typename T>
CLI::Option* AddChoice(CLI::App* app, const std::string& flag,
                       const std::string& help,
                       const std::map<std::string, T>& choices, T* out) {
  std::vector<std::string> names;
  std::string current;
  for (const auto& [name, value] : choices) {
    names.push_back(name);
    if (value == *out) current = name;
  }
  // IsMember turns the value into the name it matches, and rejects others
  // with a message that lists the names.
  return app
      ->add_option_function<std::string>(
          flag,
          [choices, out](const std::string& name) { *out = choices.at(name); },
          help)
      ->transform(CLI::IsMember(names, CLI::ignore_case).description(""))
      ->type_name(CLI::detail::join(names, "|"))
      ->default_str(current);
}

// Refuses a negative count with a message that says so (an unsigned
// option would otherwise wrap -1 around to "unlimited", and CLI11's own
// range check prints its double limits).
inline CLI::Validator NotNegative() {
  return CLI::Validator(
      [](const std::string& value) {
        return !value.empty() && value[0] == '-'
                   ? std::string("must not be negative (got " + value + ")")
                   : std::string();
      },
      "", "NOT_NEGATIVE");
}

// The names of Options::backend, for --backend.
inline const std::map<std::string, Backend>& BackendChoices() {
  static const std::map<std::string, Backend> choices = {
      {"auto", Backend::kAuto},
      {"file", Backend::kFile},
      {"pmem", Backend::kPmem}};
  return choices;
}

// Parses the command line. Returns nothing if the program should go on, or
// the exit code to end with: 0 after --help or --version (which CLI11
// reports as errors), `usage_exit_code` after a usage error (its message
// is printed).
inline std::optional<int> Parse(CLI::App* app, int argc,
                                const char* const* argv, int usage_exit_code) {
  try {
    app->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app->exit(e) == 0 ? 0 : usage_exit_code;
  }
  return std::nullopt;
}

}  // namespace plush::tools

#endif  // PLUSH_TOOLS_COMMON_COMMAND_LINE_H_
