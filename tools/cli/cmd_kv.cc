// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush put POOL KEY VALUE [--ttl S | --expires-at T] [--sync]
// plush get POOL KEY
// plush delete POOL KEY [--sync]   (or del, as redis-cli users type it)
// plush ttl POOL KEY               seconds left, or -1 for no expiry
// plush expire POOL KEY (--ttl S | --expires-at T | --persist) [--sync]

#include <iostream>

#include "command.h"
#include "expiry_args.h"
#include "plush/options.h"

namespace plush::cli {
namespace {

struct KvArgs {
  PoolArgs pool;
  Encoding encoding = Encoding::kText;
  std::string key;
  std::string value;  // put only
  WriteOptions write;  // put, delete and expire: --sync
  ExpiryArgs expiry;   // put and expire
};

// Which expiry options a key command takes (expiry_args.h).
enum class ExpiryOptions {
  kNone,
  kOptional,  // --ttl or --expires-at, or neither (put)
  kRequired,  // exactly one of those or --persist (expire)
};

// What a key command does with the open DB and its decoded arguments;
// write.expires_at_ms holds the expiry its options ask for (0 if none).
using KvAction = std::function<Status(
    DB* db, Encoding encoding, const WriteOptions& write,
    const std::string& key, const std::string& value)>;

// The engine's NotFound carries no message (it is free to make); the user
// wants to know which key.
Status KeyNotFound(Encoding encoding, const std::string& key) {
  return Status::NotFound("key '" + Encode(encoding, key) + "' not found");
}

// Registers a subcommand taking POOL KEY [VALUE] and the shared flags (and
// --sync if it `writes`), and returns it. The arguments are decoded before
// the pool is opened, so that a typo costs no recovery.
CLI::App* AddKvCommand(CLI::App* app, const char* name,
                       const char* description, bool takes_value, bool writes,
                       ExpiryOptions expiry, KvAction action, int* exit_code) {
  auto args = std::make_shared<KvArgs>();
  CLI::App* cmd = app->add_subcommand(name, description);
  AddPoolArgs(cmd, &args->pool);
  cmd->add_option("KEY", args->key, "The key")->required();
  if (takes_value) {
    cmd->add_option("VALUE", args->value, "The value")->required();
  }
  AddEncodingFlags(cmd, &args->encoding);
  if (writes) {
    // Close() syncs the pool anyway; what --sync adds is a pool opened
    // power-fail safe, whose background work cannot lose the write at a
    // power failure (in this opening or a later one: the pool stays so),
    // and the engine's refusal of a pool that no sync makes durable
    // (tmpfs, ramfs).
    cmd->add_flag("--sync", args->write.sync,
                  "Return only once the write survives power failure (file "
                  "back end: msync; the pool becomes power-fail safe, for "
                  "good: every later write is synced); refused for a pool "
                  "on tmpfs or ramfs");
  }
  if (expiry != ExpiryOptions::kNone) {
    AddExpiryOptions(cmd, expiry == ExpiryOptions::kRequired, &args->expiry);
  }
  cmd->callback([args, action, exit_code] {
    std::string key;
    std::string value;
    Status s = Decode(args->encoding, args->key, &key).WithContext("key");
    if (s.ok()) {
      s = Decode(args->encoding, args->value, &value).WithContext("value");
    }
    if (s.ok()) {
      Options options = ExistingPoolOptions(args->pool);
      options.power_fail_safe = args->write.sync;
      s = WithPool(options, args->pool.path, [&](DB* db) {
            // A --ttl counts from the write, not from the start of a
            // recovery that opening the pool may have taken.
            WriteOptions write = args->write;
            write.expires_at_ms =
                args->expiry.ExpiresAtMs(SystemClock().NowMs());
            return action(db, args->encoding, write, key, value);
          });
    }
    *exit_code = ExitWith(s);
  });
  return cmd;
}

}  // namespace

void AddPutCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "put",
      "Insert or replace the value of a key (a logged write); without "
      "--ttl or --expires-at the key keeps no expiry",
      /*takes_value=*/true, /*writes=*/true, ExpiryOptions::kOptional,
      [](DB* db, Encoding, const WriteOptions& write, const std::string& key,
         const std::string& value) { return db->Put(write, key, value); },
      exit_code);
}

void AddGetCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "get", "Print the value of a key; exit 1 if the key is missing",
      /*takes_value=*/false, /*writes=*/false, ExpiryOptions::kNone,
      [](DB* db, Encoding encoding, const WriteOptions&,
         const std::string& key, const std::string&) {
        std::string value;
        Status s = db->Get(ReadOptions(), key, &value);
        if (s.ok()) std::cout << Encode(encoding, value) << '\n';
        return s.IsNotFound() ? KeyNotFound(encoding, key) : s;
      },
      exit_code);
}

void AddDeleteCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "delete",
      "Remove a key (a logged write; removing a missing key is no error)",
      /*takes_value=*/false, /*writes=*/true,
      ExpiryOptions::kNone,
      [](DB* db, Encoding, const WriteOptions& write, const std::string& key,
         const std::string&) { return db->Delete(write, key); },
      exit_code)
      ->alias("del");
}

void AddTtlCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "ttl",
      "Print the seconds until a key expires (to the millisecond), or -1 if "
      "it never does; exit 1 if the key is missing",
      /*takes_value=*/false, /*writes=*/false, ExpiryOptions::kNone,
      [](DB* db, Encoding encoding, const WriteOptions&,
         const std::string& key, const std::string&) {
        uint64_t expires_at_ms = 0;
        Status s = db->GetExpiry(ReadOptions(), key, &expires_at_ms);
        if (s.IsNotFound()) return KeyNotFound(encoding, key);
        if (!s.ok()) return s;
        if (expires_at_ms == 0) {
          std::cout << "-1\n";
        } else {
          // The key was there when read: its time is not past, or only
          // by the milliseconds since.
          const uint64_t now = SystemClock().NowMs();
          std::cout << FormatSeconds(expires_at_ms > now ? expires_at_ms - now
                                                         : 0)
                    << '\n';
        }
        return s;
      },
      exit_code);
}

void AddExpireCommand(CLI::App* app, int* exit_code) {
  AddKvCommand(
      app, "expire",
      "Set or remove the expiry of a key, keeping its value (a logged "
      "write); exit 1 if the key is missing",
      /*takes_value=*/false, /*writes=*/true, ExpiryOptions::kRequired,
      [](DB* db, Encoding encoding, const WriteOptions& write,
         const std::string& key, const std::string&) {
        Status s = db->Expire(write, key, write.expires_at_ms);
        return s.IsNotFound() ? KeyNotFound(encoding, key) : s;
      },
      exit_code);
}

}  // namespace plush::cli
