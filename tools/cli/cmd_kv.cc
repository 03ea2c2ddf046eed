// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush put POOL KEY VALUE [--sync]
// plush get POOL KEY
// plush delete POOL KEY [--sync]   (or del, as redis-cli users type it)

#include <iostream>

#include "command.h"

namespace plush::cli {
namespace {

struct KvArgs {
  PoolArgs pool;
  Encoding encoding = Encoding::kText;
  std::string key;
  std::string value;  // put only
  WriteOptions write;  // put and delete: --sync
};

// What a key command does with the open DB and its decoded arguments.
using KvAction = std::function<Status(
    DB* db, Encoding encoding, const WriteOptions& write,
    const std::string& key, const std::string& value)>;

// Registers a subcommand taking POOL KEY [VALUE] and the shared flags (and
// --sync if it `writes`), and returns it. The arguments are decoded before
// the pool is opened, so that a typo costs no recovery.
CLI::App* AddKvCommand(CLI::App* app, const char* name,
                       const char* description, bool takes_value, bool writes,
                       KvAction action, int* exit_code) {
  auto args = std::make_shared<KvArgs>();
  CLI::App* cmd = app->add_subcommand(name, description);
  AddPoolArgs(cmd, &args->pool);
  cmd->add_option("KEY", args->key, "The key")->required();
  if (takes_value) {
    cmd->add_option("VALUE", args->value, "The value")->required();
  }
  AddEncodingFlags(cmd, &args->encoding);
  if (writes) {
    // Close() syncs the pool anyway, so that a write that exited 0 is
    // durable without --sync too; what --sync adds is the engine's refusal
    // of a pool that no sync makes durable (tmpfs, ramfs).
    cmd->add_flag("--sync", args->write.sync,
                  "Return only once the write survives power failure (file "
                  "back end: msync); refused for a pool on tmpfs or ramfs");
  }
  cmd->callback([args, action, exit_code] {
    std::string key;
    std::string value;
    Status s = Decode(args->encoding, args->key, &key).WithContext("key");
    if (s.ok()) {
      s = Decode(args->encoding, args->value, &value).WithContext("value");
    }
    if (s.ok()) {
      s = WithPool(
          ExistingPoolOptions(args->pool), args->pool.path,
          [&](DB* db) {
            return action(db, args->encoding, args->write, key, value);
          });
    }
    *exit_code = ExitWith(s);
  });
  return cmd;
}

}  // namespace

void AddPutCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "put", "Insert or replace the value of a key (a logged write)",
      /*takes_value=*/true, /*writes=*/true,
      [](DB* db, Encoding, const WriteOptions& write, const std::string& key,
         const std::string& value) { return db->Put(write, key, value); },
      exit_code);
}

void AddGetCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "get", "Print the value of a key; exit 1 if the key is missing",
      /*takes_value=*/false, /*writes=*/false,
      [](DB* db, Encoding encoding, const WriteOptions&,
         const std::string& key, const std::string&) {
        std::string value;
        Status s = db->Get(ReadOptions(), key, &value);
        if (s.ok()) std::cout << Encode(encoding, value) << '\n';
        // The engine's NotFound carries no message (it is free to make);
        // the user wants to know which key.
        if (s.IsNotFound()) {
          return Status::NotFound("key '" + Encode(encoding, key) +
                                  "' not found");
        }
        return s;
      },
      exit_code);
}

void AddDeleteCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "delete",
      "Remove a key (a logged write; removing a missing key is no error)",
      /*takes_value=*/false, /*writes=*/true,
      [](DB* db, Encoding, const WriteOptions& write, const std::string& key,
         const std::string&) { return db->Delete(write, key); },
      exit_code)
      ->alias("del");
}

}  // namespace plush::cli
