// Opens a pool, writes and reads one record: the installed package works.
#include <plush/db.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::unique_ptr<plush::DB> db;
  plush::Status s =
      plush::DB::Open(plush::Options::SmallProfile(), argv[1], &db);
  if (s.ok()) s = db->Put(plush::WriteOptions(), "key12345", "value123");
  std::string value;
  if (s.ok()) s = db->Get(plush::ReadOptions(), "key12345", &value);
  std::printf("%s %s\n", s.ToString().c_str(), value.c_str());
  return s.ok() && value == "value123" ? 0 : 1;
}
