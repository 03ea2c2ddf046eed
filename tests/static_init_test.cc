// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// A DB used from the static initializer of another translation unit, before
// main(): nothing in the library may depend on its own dynamic
// initialization having run (regression: the SIMD kernel table was
// initialized dynamically, and a lookup from here called a null function
// pointer).

#include <gtest/gtest.h>

#include <string>

#include "testutil.h"

namespace plush::test {
namespace {

// Runs during static initialization of this test binary, whose own objects
// are initialized before those of the library it links.
std::string UseADbBeforeMain() {
  ScratchPool file("static_init");
  std::unique_ptr<DB> db;
  Status s = DB::Open(Options::SmallProfile(), file.path(), &db);
  for (uint64_t k = 0; s.ok() && k < 200; ++k) s = db->Put({}, Word(k), Word(k));
  std::string value;
  if (s.ok()) s = db->Get({}, Word(150), &value);
  if (s.ok() && FromWord(value) != 150) return "wrong value";
  if (s.ok()) s = db->Get({}, Word(1000), &value);
  if (!s.IsNotFound()) return "missing key: " + s.ToString();
  s = db->Close();
  return s.ok() ? "ok" : s.ToString();
}

const std::string kResultBeforeMain = UseADbBeforeMain();

TEST(StaticInitTest, ADbWorksFromAStaticInitializer) {
  EXPECT_EQ(kResultBeforeMain, "ok");
}

}  // namespace
}  // namespace plush::test
