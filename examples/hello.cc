// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The smallest Plush program: open (or create) a pool, write a record and
// read it back. Usage: example_hello [POOL]

#include <iostream>

#include "plush/db.h"

int main(int argc, char** argv) {
  std::unique_ptr<plush::DB> db;
  plush::Status s =
      plush::DB::Open(plush::Options(), argc > 1 ? argv[1] : "hello.pool", &db);
  std::string value;
  if (s.ok()) s = db->Put(plush::WriteOptions(), "greeting", "hello!!!");
  if (s.ok()) s = db->Get(plush::ReadOptions(), "greeting", &value);
  if (s.ok()) s = db->Close();  // reports a failed final sync, unlike ~DB
  if (!s.ok()) {
    std::cerr << s.ToString() << '\n';
    return 1;
  }
  std::cout << "greeting: " << value << '\n';
}
