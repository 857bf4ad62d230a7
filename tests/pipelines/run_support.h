/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs a program or script of pipelines/ and captures what it prints (tests/pipelines). */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include <string>
#include <utility>
#include <vector>

namespace pipelines_test {

struct Outcome {
  int status = -1; /* exit status; -1 when it could not start or died by a signal */
  std::string out; /* stdout then stderr */
  std::string why; /* why it could not start */
};

inline std::string env_or (const char *name, const char *fallback)
{
  const char *v = g_getenv (name);
  return v ? v : fallback;
}

inline std::string pipelines_dir ()
{
  return env_or ("DLAINFER_PIPELINES_DIR", "pipelines");
}
inline std::string pipelines_build ()
{
  return env_or ("DLAINFER_PIPELINES_BUILD", "pipelines");
}

/* argv with `env` (NAME, VALUE) added to this process's environment. ELF programs of the build go
 * through $BUNDLE_EXE_WRAPPER when `wrap` (a GPU-host bundle built in another C library's root). */
inline Outcome run (std::vector<std::string> argv,
                    const std::vector<std::pair<std::string, std::string>> &env, bool wrap = false)
{
  Outcome r;
  const char *wrapper = g_getenv ("BUNDLE_EXE_WRAPPER");
  if (wrap && wrapper && *wrapper) {
    gchar **w = g_strsplit (wrapper, " ", -1);
    std::vector<std::string> full;
    for (gchar **p = w; *p; ++p)
      if (**p)
        full.emplace_back (*p);
    g_strfreev (w);
    full.insert (full.end (), argv.begin (), argv.end ());
    argv = std::move (full);
  }
  std::vector<gchar *> args;
  for (auto &a : argv)
    args.push_back (const_cast<gchar *> (a.c_str ()));
  args.push_back (nullptr);
  gchar **envp = g_get_environ ();
  for (const auto &kv : env)
    envp = g_environ_setenv (envp, kv.first.c_str (), kv.second.c_str (), TRUE);
  gchar *out = nullptr, *err = nullptr;
  gint wait = 0;
  GError *error = nullptr;
  if (g_spawn_sync (nullptr, args.data (), envp, G_SPAWN_SEARCH_PATH, nullptr, nullptr, &out, &err, &wait,
                    &error)) {
    r.out = std::string (out ? out : "") + (err ? err : "");
    if (WIFEXITED (wait))
      r.status = WEXITSTATUS (wait);
  } else {
    r.why = error ? error->message : "g_spawn_sync failed";
  }
  g_clear_error (&error);
  g_free (out);
  g_free (err);
  g_strfreev (envp);
  return r;
}

/* A directory of its own for one test (under $TMPDIR, or /tmp), removed with what it holds. */
class TempDir {
 public:
  explicit TempDir (const char *name = "dlainfer-pipelines-XXXXXX")
  {
    gchar *d = g_dir_make_tmp (name, nullptr);
    path_ = d ? d : "";
    g_free (d);
  }
  ~TempDir ()
  {
    if (!path_.empty ())
      run ({"rm", "-rf", "--", path_}, {});
  }
  TempDir (const TempDir &) = delete;
  TempDir &operator= (const TempDir &) = delete;
  const std::string &path () const { return path_; }
  std::string operator/ (const std::string &name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/* Writes `text` to `path`, executable when `exec` (stand-ins for programs). */
inline bool write_file (const std::string &path, const std::string &text, bool exec = false)
{
  if (!g_file_set_contents (path.c_str (), text.c_str (), gssize (text.size ()), nullptr))
    return false;
  return !exec || g_chmod (path.c_str (), 0755) == 0;
}

inline std::string read_file (const std::string &path)
{
  gchar *text = nullptr;
  gsize len = 0;
  if (!g_file_get_contents (path.c_str (), &text, &len, nullptr))
    return "";
  std::string s (text, len);
  g_free (text);
  return s;
}

inline std::vector<std::string> lines_of (const std::string &text)
{
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size ()) {
    size_t end = text.find ('\n', start);
    if (end == std::string::npos)
      end = text.size ();
    lines.push_back (text.substr (start, end - start));
    start = end + 1;
  }
  return lines;
}

inline int count_lines_with (const std::string &text, const std::vector<std::string> &needles)
{
  int n = 0;
  for (const auto &l : lines_of (text)) {
    bool all = true;
    for (const auto &s : needles)
      all = all && l.find (s) != std::string::npos;
    n += all;
  }
  return n;
}

}  // namespace pipelines_test
