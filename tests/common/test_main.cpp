/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
#include "dla/primary_context.h"
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

/* Every other domain (GStreamer-Cuda, GStreamer-Analytics, ...): warnings and criticals fail the
 * test, the rest is printed as GLib would. */
void on_any_log (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    on_log (domain, level, message, data);
  else
    g_log_default_handler (domain, level, message, data);
}

void install_log_handlers ()
{
  const auto levels = GLogLevelFlags (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  for (const char *domain : {static_cast<const char *> (nullptr), "GStreamer", "GLib", "GLib-GObject"})
    g_log_set_handler (domain, levels, on_log, nullptr);
  g_log_set_default_handler (on_any_log, nullptr);
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

#ifdef DLAINFER_GPU_SUITE
/* -1: a CUDA device is there, run. 77 (SKIP): no driver or no device, the reason printed. 1 (FAIL): a
 * broken CUDA setup (driver too old, devices hidden, any other error), or no GPU where the run says
 * one is required (DLAINFER_REQUIRE_GPU=1, as on the GPU host): those must never read as skipped. */
int gpu_suite_gate ()
{
  const dla::CudaProbe p = dla::probe_cuda ();
  const char *required = g_getenv ("DLAINFER_REQUIRE_GPU");
  const bool need = required && std::string (required) == "1";
  const dla::GpuGate gate = dla::gpu_gate (p.state, need);
  if (gate == dla::GpuGate::kRun)
    return -1;
  if (gate == dla::GpuGate::kSkip) {
    std::printf ("SKIP: every test of this program needs a CUDA device: %s\n", p.why.c_str ());
    return 77;
  }
  const bool absent = dla::gpu_gate (p.state, false) == dla::GpuGate::kSkip;
  std::printf ("FAIL: this program needs a working CUDA device: %s%s\n", p.why.c_str (),
               absent ? " (DLAINFER_REQUIRE_GPU=1: a GPU is required here)" : "");
  return 1;
}
#endif

}  // namespace dlainfer_test

int main (int argc, char **argv)
{
  testing::InitGoogleTest (&argc, argv);
  gst_check_init (&argc, &argv);
  dlainfer_test::install_log_handlers ();

#ifdef DLAINFER_GPU_SUITE
  const int no_gpu = dlainfer_test::gpu_suite_gate ();
  if (no_gpu >= 0)
    return no_gpu;
#endif

  const int rc = RUN_ALL_TESTS ();
  const testing::UnitTest *unit = testing::UnitTest::GetInstance ();
  /* One line a runner can read, e.g. to show which programs skipped what. GoogleTest's successful
   * count leaves the skipped tests out already. */
  std::printf ("dlainfer-tests: %d run, %d passed, %d failed, %d skipped\n", unit->test_to_run_count (),
               unit->successful_test_count (), unit->failed_test_count (), unit->skipped_test_count ());
  if (rc == 0 && unit->test_to_run_count () > 0 &&
      unit->skipped_test_count () == unit->test_to_run_count ()) {
    std::printf ("SKIP: all %d tests skipped\n", unit->skipped_test_count ());
    return 77;
  }
  return rc;
}
