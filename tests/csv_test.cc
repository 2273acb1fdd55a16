// host/util/csv.c: RFC 4180 fields written (tb_csvField) and read back (tb_csvNext, the reader
// of the HDF5 tables), and the failure tally the command line says on stderr (jobs/sweep.c).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tumble/sweep.h>

#include "util/csv.h"

namespace {

// what tb_csvFieldSuffix writes
std::string Field(const char* s, const char* suffix = "") {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  tb_csvFieldSuffix(f, s, suffix);
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

// every field of text by tb_csvNext, each with the character that ended it; ok false on NULL
std::vector<std::pair<std::string, char>> Fields(std::string text, bool* ok) {
  std::vector<std::pair<std::string, char>> out;
  std::vector<char> buf(text.begin(), text.end());
  buf.push_back(0);
  char* at = buf.data();
  *ok = true;
  while (*at) {
    char end = 'X';
    char* f = tb_csvNext(&at, &end);
    if (!f) {
      *ok = false;
      break;
    }
    out.push_back({f, end});
  }
  return out;
}

// catches a name quoted when it need not be (every table's columns would change) or written
// bare when it holds a separator or a quote (the row shifts or splits)
TEST(CsvTest, FieldsAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(Field("mu"), "mu");
  EXPECT_EQ(Field("box.pos_x"), "box.pos_x");
  EXPECT_EQ(Field(""), "");
  EXPECT_EQ(Field("x,y"), "\"x,y\"");
  EXPECT_EQ(Field("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(Field("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(Field("cr\r"), "\"cr\r\"");
  // a suffix joins the name in one field, quoted as a whole
  EXPECT_EQ(Field("mu", "_mean"), "mu_mean");
  EXPECT_EQ(Field("a,b", "_std"), "\"a,b_std\"");
}

// catches a reader that splits a quoted field at its comma or line break, keeps its quotes, or
// takes a doubled quote as the field's end
TEST(CsvTest, QuotedFieldsReadBackWhole) {
  bool ok = false;
  auto f = Fields("scene,\"a,\"\"b\nc.mass\",ok\r\n1,2,\"\"\n", &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0], std::make_pair(std::string("scene"), ','));
  EXPECT_EQ(f[1], std::make_pair(std::string("a,\"b\nc.mass"), ','));
  EXPECT_EQ(f[2], std::make_pair(std::string("ok"), '\n'));  // the CR of CRLF dropped
  EXPECT_EQ(f[3], std::make_pair(std::string("1"), ','));
  EXPECT_EQ(f[5], std::make_pair(std::string(""), '\n'));
  // the last field without a line break ends at the text's end
  f = Fields("a,\"b\"", &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1], std::make_pair(std::string("b"), '\0'));
}

// catches a reader that runs past an open quote (to the end of the buffer) or accepts text
// after a closing one
TEST(CsvTest, MalformedQuotesAreRefused) {
  bool ok = true;
  Fields("a,\"open\n", &ok);
  EXPECT_FALSE(ok);
  Fields("\"x\"y,1\n", &ok);
  EXPECT_FALSE(ok);
}

// whatever is written reads back as itself, one field, for every byte a name can hold
TEST(CsvTest, WrittenFieldsRoundTrip) {
  const char* names[] = {"plain", "x,y", "\"", "\"\"", "a\"b,c\nd\r\ne", ",", "\n", "end\""};
  for (const char* n : names) {
    bool ok = false;
    auto f = Fields(Field(n) + "\n", &ok);
    ASSERT_TRUE(ok) << n;
    ASSERT_EQ(f.size(), 1u) << n;
    EXPECT_EQ(f[0].first, n);
  }
}

// catches a tally whose first scene depends on the order chunks are merged in (the grasp
// study's pieces, a resumed run's replayed rows): the lowest id is first, counts add up
TEST(CsvTest, FailTallyKeepsTheLowestIdFirst) {
  tbFailTally a = {}, b = {};
  tb_failTallyAdd(&a, 0, 0.0, 0);  // ok
  tb_failTallyAdd(&a, TB_SCENE_OVERFLOW_FAIL, 0.0, 7);
  tb_failTallyAdd(&a, TB_SCENE_OVERFLOW_FAIL | TB_SCENE_UNCONVERGED, 0.0, 9);
  tb_failTallyAdd(&b, TB_SCENE_OVERFLOW_FAIL, 0.0, 3);
  tb_failTallyAdd(&b, TB_SCENE_START_FAIL, 0.0, 4);
  tb_failTallyAdd(&a, TB_SCENE_NAN_FAIL, 0.0, 5);
  tb_failTallyAdd(&b, TB_SCENE_NAN_FAIL, 0.0, 2);
  tb_failTallyAdd(&b, TB_SCENE_SOLVER_FAIL, 0.0, 6);
  tb_failTallyAdd(&a, TB_SCENE_BALANCE_FAIL, 0.0, 8);
  EXPECT_EQ(a.overflow, 2);
  EXPECT_EQ(a.overflow_first, 7);
  EXPECT_EQ(a.buried, 0);
  EXPECT_EQ(a.diverged, 1);
  tb_failTallyMerge(&a, &b);
  EXPECT_EQ(a.overflow, 3);
  EXPECT_EQ(a.overflow_first, 3);
  EXPECT_EQ(a.buried, 1);
  EXPECT_EQ(a.buried_first, 4);
  EXPECT_EQ(a.diverged, 2);
  EXPECT_EQ(a.diverged_first, 2);
  EXPECT_EQ(a.inapplicable, 1);
  EXPECT_EQ(a.inapplicable_first, 6);
  EXPECT_EQ(a.unbalanced, 1);
  EXPECT_EQ(a.unbalanced_first, 8);
  tbFailTally none = {};
  tb_failTallyMerge(&a, &none);  // an empty part changes nothing
  EXPECT_EQ(a.overflow_first, 3);
  EXPECT_EQ(a.buried_first, 4);
}

}  // namespace
