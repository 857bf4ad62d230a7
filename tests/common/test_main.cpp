/* The main of every test program: GoogleTest plus gst-check's initialisation.
 *
 * gst_check_init's log handlers end the process through libcheck, which GoogleTest does not run,
 * so they are replaced: an unexpected GLib/GStreamer warning or critical fails the current test.
 * A program whose tests all skipped exits 77, so Meson reports SKIP rather than OK. The GPU suite
 * (DLAINFER_GPU_SUITE) exits 77 at once, with the reason, when there is no CUDA device. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "test_support.h"

/* Last: libcheck's macros (fail, ...) clash with C++ headers included after them. */
#include <gst/check/gstcheck.h>

#ifdef DLAINFER_GPU_SUITE
#include "primary_context.h"
#endif

namespace dlainfer_test {
namespace {

std::mutex log_mutex;
int expecting = 0;
std::vector<std::string> recorded;

void on_log (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer)
{
  {
    std::lock_guard<std::mutex> lock (log_mutex);
    if (expecting > 0) {
      recorded.emplace_back (message ? message : "");
      return;
    }
  }
  ADD_FAILURE () << "unexpected " << ((level & G_LOG_LEVEL_CRITICAL) ? "critical" : "warning") << " from "
                 << (domain ? domain : "(default)") << ": " << message;
}

void install_log_handlers ()
{
  const auto levels = GLogLevelFlags (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  for (const char *domain : {static_cast<const char *> (nullptr), "GStreamer", "GLib", "GLib-GObject"})
    g_log_set_handler (domain, levels, on_log, nullptr);
  /* Criticals must reach the handler above, not abort. */
  g_log_set_always_fatal (GLogLevelFlags (G_LOG_FATAL_MASK));
}

}  // namespace

ExpectLogs::ExpectLogs ()
{
  std::lock_guard<std::mutex> lock (log_mutex);
  if (expecting++ == 0)
    recorded.clear ();
}

ExpectLogs::~ExpectLogs ()
{
  std::lock_guard<std::mutex> lock (log_mutex);
  --expecting;
}

int ExpectLogs::count () const
{
  std::lock_guard<std::mutex> lock (log_mutex);
  return int (recorded.size ());
}

bool ExpectLogs::contains (const std::string &needle) const
{
  std::lock_guard<std::mutex> lock (log_mutex);
  for (const auto &m : recorded)
    if (m.find (needle) != std::string::npos)
      return true;
  return false;
}

}  // namespace dlainfer_test

int main (int argc, char **argv)
{
  testing::InitGoogleTest (&argc, argv);
  gst_check_init (&argc, &argv);
  dlainfer_test::install_log_handlers ();

#ifdef DLAINFER_GPU_SUITE
  std::string why;
  if (dla::cuda_device_count (&why) == 0) {
    std::printf ("SKIP: every test of this program needs a CUDA device: %s\n", why.c_str ());
    return 77;
  }
#endif

  const int rc = RUN_ALL_TESTS ();
  const testing::UnitTest *unit = testing::UnitTest::GetInstance ();
  if (rc == 0 && unit->test_to_run_count () > 0 && unit->skipped_test_count () == unit->test_to_run_count ()) {
    std::printf ("SKIP: all %d tests skipped\n", unit->skipped_test_count ());
    return 77;
  }
  return rc;
}
