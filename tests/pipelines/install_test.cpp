/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unit: the install as the README documents it. `DESTDIR=D meson install -C BUILD` once into a
 * directory of the test's own; then, with D standing for / (D's library directory on
 * LD_LIBRARY_PATH for `sudo ldconfig`, D's plugin directory for the one named):
 *  - gst-inspect-1.0 finds dlainfer with what the README says (nothing with GStreamer's prefix; its
 *    `export GST_PLUGIN_PATH=...` line otherwise), and the README's --exists check answers yes;
 *  - the example application builds as a user's program, from its source alone with
 *    `pkg-config --cflags --libs gstreamer-dlainfer-1.0` against the installed library, and runs. */
#include <gtest/gtest.h>

#include "run_support.h"
#include "test_support.h"

using namespace pipelines_test;

namespace {

std::string need (const char *name)
{
  const char *v = g_getenv (name);
  return v ? v : "";
}

/* The README line that starts with `prefix` (its code blocks are indented or not): the only one,
 * or with `first`, the first. */
std::string readme_line (const std::string &prefix, bool first = false)
{
  std::string found;
  int n = 0;
  for (const auto &l : lines_of (read_file (dlainfer_test::source_path ("README.md")))) {
    const size_t start = l.find_first_not_of (' ');
    if (start != std::string::npos && l.compare (start, prefix.size (), prefix) == 0) {
      if (n == 0)
        found = l.substr (start);
      ++n;
    }
  }
  return n == 1 || (first && n > 1) ? found : "";
}

class Installed : public ::testing::Test {
 protected:
  static void SetUpTestSuite ()
  {
    tmp_ = new TempDir ("dlainfer-install-XXXXXX");
    root_ = *tmp_ / "root";
    install_ = new Outcome (
        run ({need ("DLAINFER_MESON"), "install", "-C", need ("DLAINFER_BUILD_ROOT"), "--no-rebuild"},
             {{"DESTDIR", root_}}));
  }
  static void TearDownTestSuite ()
  {
    delete install_;
    delete tmp_;
  }

  void SetUp () override
  {
    ASSERT_EQ (install_->why, "");
    ASSERT_EQ (install_->status, 0) << install_->out;
  }

  /* `argv` as a user's shell would run it after the install: none of the test's GStreamer
   * environment (the build tree's plugin), a registry of the test's own, `env` added. */
  static Outcome run_installed (std::vector<std::string> argv,
                                std::vector<std::pair<std::string, std::string>> env)
  {
    std::vector<std::string> full = {
        "env", "-u", "GST_PLUGIN_PATH_1_0", "-u", "GST_PLUGIN_PATH", "-u", "DLAINFER_CUDLA_LIBRARY"};
    env.push_back ({"GST_REGISTRY", *tmp_ / "registry.bin"});
    env.push_back ({"LD_LIBRARY_PATH", root_ + need ("DLAINFER_LIBDIR")});
    for (const auto &kv : env)
      full.push_back (kv.first + "=" + kv.second);
    full.insert (full.end (), argv.begin (), argv.end ());
    return run (full, {});
  }

  /* The environment the README asks for: GStreamer's prefix: nothing (the plugin is in GStreamer's
   * own directory, here D's copy of it); another prefix: its `export GST_PLUGIN_PATH=` line. */
  static std::vector<std::pair<std::string, std::string>> readme_env ()
  {
    const std::string plugins = need ("DLAINFER_PLUGINS_INSTALL_DIR");
    if (plugins == need ("DLAINFER_GST_PLUGINSDIR"))
      return {{"GST_PLUGIN_SYSTEM_PATH_1_0", root_ + plugins + ":" + plugins}};
    return {{"GST_PLUGIN_PATH", root_ + plugins}};
  }

  static TempDir *tmp_;
  static std::string root_;
  static Outcome *install_;
};

TempDir *Installed::tmp_ = nullptr;
std::string Installed::root_;
Outcome *Installed::install_ = nullptr;

}  // namespace

TEST_F (Installed, FilesWhereTheReadmeSays)
{
  for (const std::string &f : {need ("DLAINFER_PLUGINS_INSTALL_DIR") + "/libgstdlainfer.so",
                               need ("DLAINFER_INCLUDEDIR") + "/gstreamer-1.0/gst/dlainfer/gstdlameta.h",
                               need ("DLAINFER_LIBDIR") + "/pkgconfig/gstreamer-dlainfer-1.0.pc",
                               need ("DLAINFER_LIBDIR") + "/libgstdlainfer-1.0.so.0"})
    EXPECT_TRUE (g_file_test ((root_ + f).c_str (), G_FILE_TEST_EXISTS)) << f << "\n" << install_->out;
}

/* With GStreamer's prefix the plugin lands in GStreamer's own directory; with another the README's
 * `export GST_PLUGIN_PATH=...` line names exactly the directory it lands in (for /usr/local; other
 * prefixes: the one Meson's summary prints). */
TEST_F (Installed, ReadmeNamesThePluginDirectory)
{
  const std::string plugins = need ("DLAINFER_PLUGINS_INSTALL_DIR");
  const std::string prefix = need ("DLAINFER_PREFIX");
  if (plugins == need ("DLAINFER_GST_PLUGINSDIR")) {
    EXPECT_NE (readme_line ("bash tools/setup-build.sh build --prefix=" + prefix + " ", true), "")
        << "the README does not show this set-up";
    return;
  }
  const std::string line = readme_line ("export GST_PLUGIN_PATH=");
  ASSERT_NE (line, "") << "the README has no (single) `export GST_PLUGIN_PATH=` line";
  const Outcome e = run ({"bash", "-c", "eval \"$1\"; printf %s \"$GST_PLUGIN_PATH\"", "_", line}, {});
  ASSERT_EQ (e.status, 0) << line << "\n" << e.out;
  if (prefix == "/usr/local")
    EXPECT_EQ (e.out, plugins) << "the README's " << line;
  else
    std::printf ("note: prefix %s: the README's line is for /usr/local (%s)\n", prefix.c_str (),
                 e.out.c_str ());
}

TEST_F (Installed, GstInspectFindsTheInstalledPlugin)
{
  const Outcome r = run_installed ({"gst-inspect-1.0", "dlainfer"}, readme_env ());
  EXPECT_EQ (r.status, 0) << r.out;
  EXPECT_NE (r.out.find ("Filename"), std::string::npos) << r.out;
  EXPECT_NE (r.out.find (root_ + need ("DLAINFER_PLUGINS_INSTALL_DIR") + "/libgstdlainfer.so"),
             std::string::npos)
      << "not the installed copy:\n"
      << r.out;
  EXPECT_NE (r.out.find ("  post-messages "), std::string::npos) << r.out;
  EXPECT_NE (r.out.find ("https://github.com/gst-dlainfer/gst-dlainfer"), std::string::npos)
      << "the origin should name the repository\n"
      << r.out;
}

/* The README's existence check answers yes. (Plain `gst-inspect-1.0 --exists` also compares the
 * plugin's version with the core's on some GStreamer versions: dlainfer's 0.x is below 1.22.) */
TEST_F (Installed, ReadmesExistsCheckAnswersYes)
{
  const std::string line = readme_line ("gst-inspect-1.0 --exists ");
  ASSERT_NE (line, "") << "the README shows no (single) `gst-inspect-1.0 --exists` check";
  auto env = readme_env ();
  std::vector<std::string> argv = {"bash", "-c", "eval \"$1\"", "_", line};
  const Outcome r = run_installed (argv, env);
  EXPECT_EQ (r.status, 0) << line << "\n" << r.out;
  const Outcome plain = run_installed ({"gst-inspect-1.0", "--exists", "dlainfer"}, env);
  std::printf ("note: plain `gst-inspect-1.0 --exists dlainfer` exits %d here\n", plain.status);
  const Outcome missing =
      run_installed ({"bash", "-c", "eval \"${1/dlainfer/no-such-element}\"", "_", line}, env);
  EXPECT_NE (missing.status, 0) << "the check answers yes for a missing element too";
}

/* A user's program: the example's source alone, flags from pkg-config (the installed .pc, its prefix
 * moved into D as the install would have it at /), linked with the installed library. */
TEST_F (Installed, ExampleBuildsWithPkgConfigAndRuns)
{
  const std::string pcdir = *tmp_ / "pkgconfig";
  ASSERT_EQ (g_mkdir_with_parents (pcdir.c_str (), 0755), 0);
  const std::string pc =
      read_file (root_ + need ("DLAINFER_LIBDIR") + "/pkgconfig/gstreamer-dlainfer-1.0.pc");
  ASSERT_NE (pc, "");
  const std::string prefix_line = "prefix=" + need ("DLAINFER_PREFIX") + "\n";
  ASSERT_EQ (pc.rfind (prefix_line, 0), 0u) << pc;
  ASSERT_TRUE (
      write_file (pcdir + "/gstreamer-dlainfer-1.0.pc",
                  "prefix=" + root_ + need ("DLAINFER_PREFIX") + "\n" + pc.substr (prefix_line.size ())));

  const std::string exe = *tmp_ / "dlainfer-example";
  const Outcome cc =
      run ({"bash", "-c",
            "set -euo pipefail; flags=$(\"$PKG_CONFIG\" --cflags --libs gstreamer-dlainfer-1.0)\n"
            "echo \"flags: $flags\"; $CXX -std=c++17 -o \"$2\" \"$1\" $flags",
            "_", dlainfer_test::source_path ("pipelines/example-app.cpp"), exe},
           {{"PKG_CONFIG", need ("DLAINFER_PKG_CONFIG")},
            {"CXX", need ("DLAINFER_CXX")},
            {"PKG_CONFIG_PATH", pcdir + ":" + env_or ("PKG_CONFIG_PATH", "")}});
  ASSERT_EQ (cc.status, 0) << cc.out;
  EXPECT_NE (cc.out.find ("-I" + root_), std::string::npos) << cc.out;
  EXPECT_EQ (cc.out.find (need ("DLAINFER_BUILD_ROOT") + "/"), std::string::npos) << "build-tree flags\n"
                                                                                  << cc.out;

  const Outcome help = run_installed ({exe, "--help"}, {});
  EXPECT_EQ (help.status, 0) << help.out;
  EXPECT_NE (help.out.find ("--model"), std::string::npos) << help.out;
  EXPECT_NE (help.out.find ("--source"), std::string::npos) << help.out;
  /* The library it loads is the installed one. */
  const Outcome libs = run_installed ({exe}, {{"LD_TRACE_LOADED_OBJECTS", "1"}});
  EXPECT_NE (libs.out.find ("libgstdlainfer-1.0.so.0 => " + root_ + need ("DLAINFER_LIBDIR")),
             std::string::npos)
      << libs.out;
}

/* Introspection (-Dintrospection, on in CI): the typelib and the .gir where the README says, the
 * .gir naming the pkg-config package and library of the same API version (1.0), and the installed
 * Python example loading the installed typelib (it then stops at the plugin, kept off its path). */
TEST_F (Installed, TypelibAndPythonExample)
{
  if (need ("DLAINFER_INTROSPECTION") != "1")
    GTEST_SKIP () << "built without introspection (-Dintrospection)";
  const std::string typelib_dir = root_ + need ("DLAINFER_LIBDIR") + "/girepository-1.0";
  const std::string gir = root_ + need ("DLAINFER_DATADIR") + "/gir-1.0/GstDlaInfer-1.0.gir";
  const std::string example =
      root_ + need ("DLAINFER_DATADIR") + "/gst-dlainfer/examples/dlainfer-example.py";
  for (const std::string &f : {typelib_dir + "/GstDlaInfer-1.0.typelib", gir, example})
    EXPECT_TRUE (g_file_test (f.c_str (), G_FILE_TEST_EXISTS)) << f << "\n" << install_->out;
  EXPECT_TRUE (g_file_test (example.c_str (), G_FILE_TEST_IS_EXECUTABLE)) << example;
  const std::string text = read_file (gir);
  for (const char *s :
       {"<package name=\"gstreamer-dlainfer-1.0\"/>", "<include name=\"Gst\" version=\"1.0\"/>",
        "shared-library=\"libgstdlainfer-1.0.so.0\"", "name=\"buffer_get_dla_classification_meta\""})
    EXPECT_NE (text.find (s), std::string::npos) << s;
  EXPECT_TRUE (
      g_file_test ((root_ + need ("DLAINFER_LIBDIR") + "/pkgconfig/gstreamer-dlainfer-1.0.pc").c_str (),
                   G_FILE_TEST_EXISTS));

  if (run ({"/usr/bin/python3", "-c", "import gi"}, {}).status != 0 && !g_getenv ("CI"))
    GTEST_SKIP () << "no PyGObject in /usr/bin/python3 (python3-gi)";
  const std::string typelib_path =
      typelib_dir + (g_getenv ("GI_TYPELIB_PATH") ? std::string (":") + need ("GI_TYPELIB_PATH") : "");
  const Outcome r =
      run_installed ({"/usr/bin/python3", example, "--model", "m.loadable"},
                     {{"GI_TYPELIB_PATH", typelib_path}, {"GST_PLUGIN_PATH", *tmp_ / "no-plugins"}});
  EXPECT_EQ (r.status, 1) << r.out;
  EXPECT_NE (r.out.find ("the dlainfer element is missing"), std::string::npos) << r.out;
  EXPECT_EQ (r.out.find ("GstDlaInfer-1.0 is missing"), std::string::npos) << r.out;
}
