/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Labels files: one per line, BOM/CRLF/trailing blanks tolerated, DeepStream's ';' line refused
 * with the conversion, missing file told apart, and class-index names without labels. */
#include "host/labels.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> parse_ok (const std::string &text)
{
  std::vector<std::string> out;
  std::string why;
  EXPECT_TRUE (labels::parse (text, &out, &why)) << why;
  return out;
}

TEST (Labels, OnePerLine)
{
  EXPECT_EQ (parse_ok ("cat\ndog\nbird"), (std::vector<std::string>{"cat", "dog", "bird"}));
}

TEST (Labels, BomCrlfTrailingBlanksAndFinalNewlines)
{
  EXPECT_EQ (parse_ok ("\xEF\xBB\xBF"
                       "cat \r\ndog\t\r\nhot dog\r\n\r\n\n"),
             (std::vector<std::string>{"cat", "dog", "hot dog"}));
}

/* An empty line in the middle is a class: it must not shift later labels, and it is named by its
 * index rather than "". */
TEST (Labels, EmptyLineInsideKeepsItsIndex)
{
  EXPECT_EQ (parse_ok ("a\n\nc\n"), (std::vector<std::string>{"a", "class_1", "c"}));
}

/* A NUL byte would silently cut the label short where it becomes a GQuark. */
TEST (Labels, NulByteRefused)
{
  std::vector<std::string> out;
  std::string why;
  EXPECT_FALSE (labels::parse (std::string ("cat\ndo\0g\n", 9), &out, &why));
  EXPECT_NE (why.find ("line 2 holds a NUL byte"), std::string::npos) << why;
}

/* A device or FIFO as labels file is refused before reading (it would never end or block). */
TEST (Labels, NotARegularFileRefused)
{
  std::vector<std::string> out;
  std::string why;
  bool not_found = true;
  EXPECT_FALSE (labels::load ("/dev/zero", &out, &why, &not_found));
  EXPECT_FALSE (not_found);
  EXPECT_NE (why.find ("'/dev/zero' is not a regular file"), std::string::npos) << why;
}

TEST (Labels, Utf8Kept)
{
  EXPECT_EQ (parse_ok ("caf\xC3\xA9\n\xE7\x8C\xAB\n"),
             (std::vector<std::string>{"caf\xC3\xA9", "\xE7\x8C\xAB"}));
}

/* Latin-1 (or any non-UTF-8 byte sequence) is refused naming the line and how to convert it. */
TEST (Labels, InvalidUtf8Refused)
{
  for (const std::string &bad : {std::string ("ok\ncaf\xE9\n"), std::string ("ok\n\xC3\n"),
                                 std::string ("ok\n\xC0\xAF\n"), std::string ("ok\n\xED\xA0\x80\n")}) {
    std::vector<std::string> out;
    std::string why;
    EXPECT_FALSE (labels::parse (bad, &out, &why));
    EXPECT_NE (why.find ("line 2 is not valid UTF-8"), std::string::npos) << why;
    EXPECT_NE (why.find ("iconv"), std::string::npos) << why;
  }
  EXPECT_EQ (parse_ok ("\xF0\x9F\x90\x88\n"), (std::vector<std::string>{"\xF0\x9F\x90\x88"}))
      << "4-byte UTF-8";
}

TEST (Labels, DeepStreamLineRefusedWithConversion)
{
  std::vector<std::string> out;
  std::string why;
  EXPECT_FALSE (labels::parse ("cat;dog;bird\n", &out, &why));
  EXPECT_NE (why.find ("one label per line"), std::string::npos) << why;
  EXPECT_NE (why.find ("tr ';'"), std::string::npos) << why;
}

TEST (Labels, EmptyFileRefused)
{
  std::vector<std::string> out;
  std::string why;
  EXPECT_FALSE (labels::parse ("\n \n", &out, &why));
  EXPECT_NE (why.find ("no labels"), std::string::npos) << why;
}

TEST (Labels, MissingFileIsNotFound)
{
  std::vector<std::string> out;
  std::string why;
  bool not_found = false;
  EXPECT_FALSE (labels::load ("/nonexistent/labels.txt", &out, &why, &not_found));
  EXPECT_TRUE (not_found);
  EXPECT_NE (why.find ("/nonexistent/labels.txt"), std::string::npos) << why;
}

TEST (Labels, LoadsFile)
{
  const std::string path = testing::TempDir () + "dlainfer-labels-test.txt";
  std::ofstream (path) << "zero\r\none\r\n";
  std::vector<std::string> out;
  std::string why;
  bool not_found = true;
  ASSERT_TRUE (labels::load (path, &out, &why, &not_found)) << why;
  EXPECT_FALSE (not_found);
  EXPECT_EQ (out, (std::vector<std::string>{"zero", "one"}));
  std::remove (path.c_str ());
}

TEST (Labels, ClassIndexNamesWithoutLabels)
{
  const std::vector<std::string> none;
  EXPECT_EQ (labels::name_for (none, 3), "class_3");
  const std::vector<std::string> two{"a", "b"};
  EXPECT_EQ (labels::name_for (two, 1), "b");
  EXPECT_EQ (labels::name_for (two, 2), "class_2");
}

}  // namespace
