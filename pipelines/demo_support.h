/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the demo programs (demo.cpp, objects-demo.cpp) share: element lookups, probes, the
 * --set PROP=VALUE properties and running a pipeline to its end. */
#pragma once

#include <gst/gst.h>

#include <string>

namespace demo {

/* Parses the command line against `entries` and GStreamer's own options; false (and `*err` set
 * when GLib said why) on a parse error. */
bool parse_options (int *argc, char ***argv, const GOptionEntry *entries, const char *summary, GError **err);

/* Whether the element factory is installed. */
bool have (const char *factory);

/* A buffer probe on pad `pad` of the element named `element`. */
void add_probe (GstElement *pipeline, const char *element, const char *pad, GstPadProbeCallback cb,
                gpointer data);

/* Sets each "PROP=VALUE" of `sets` on `element` (as gst-launch-1.0 would). */
void set_properties (GstElement *element, gchar **sets);

/* PLAYING until EOS or an error (printed, prefixed with `program`), then NULL. Returns 0 at EOS, 1 on
 * an error. */
int run_to_end (GstElement *pipeline, const char *program);

/* Whether PNG frames go to `png_dir` (nullptr: none asked for): textoverlay, pngenc and
 * multifilesink are installed (else one line says which packages have them), and the directory is
 * made. */
bool png_output (const char *program, const char *png_dir);

/* The end of the summary line: the backend, the PNG frames written (when `png_dir` is not empty), a
 * newline, and a note when the results came from swdla. */
void finish_summary (const std::string &backend, int pngs, const std::string &png_dir);

/* A pipeline description that did not parse: one line; a missing cudaupload is named with its
 * package (gst_parse only says: no element "cudaupload"). */
void print_parse_error (const char *program, const GError *err, const char *desc);

/* Without a CUDA device: one line saying so; returns false. */
bool cuda_device_present (const char *program);

}  // namespace demo
