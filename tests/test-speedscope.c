/* test-speedscope.c: the speedscope loader and writer, against
 * speedscope's own snapshot tests, plus malformed input.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "flame-error.h"
#include "flame-json.h"
#include "flame-loader.h"
#include "flame-report.h"
#include "flame-speedscope.h"
#include "flame-test-utils.h"
#include "flame-test-snap.h"

static FlameProfile *
load_text_opts (const char              *text,
                gssize                   len,
                const FlameLoadOptions  *opts,
                GError                 **error)
{
  g_autoptr(GBytes) raw = g_bytes_new (text, len < 0 ? strlen (text) : (gsize) len);
  g_autoptr(GBytes) bytes = flame_decode_bytes ("test.json", raw, NULL, error);

  if (bytes == NULL)
    return NULL;
  return flame_load_bytes_full ("test.json", bytes, opts, NULL, NULL, NULL, error);
}

static FlameProfile *
load_text (const char  *text,
           GError     **error)
{
  return load_text_opts (text, -1, NULL, error);
}

static gdouble
unit_scale (FlameProfile *p)
{
  const char *unit = flame_profile_get_metadata (p, "speedscope-unit");

  if (g_strcmp0 (unit, "microseconds") == 0) return 1e3;
  if (g_strcmp0 (unit, "milliseconds") == 0) return 1e6;
  if (g_strcmp0 (unit, "seconds") == 0) return 1e9;
  return 1;
}

static void
test_snapshots (void)
{
  static const struct { const char *title; const char *file; gint profile; } cases[] = {
    { "importSpeedscopeProfiles 0.0.1 evented profile (no pretty print) 1", "0.0.1/simple-no-pretty-print.speedscope.json", -1 },
    { "importSpeedscopeProfiles 0.0.1 evented profile 1", "0.0.1/simple.speedscope.json", -1 },
    { "importSpeedscopeProfiles 0.1.2 sampled profile 1", "0.1.2/simple-sampled.speedscope.json", -1 },
    { "importSpeedscopeProfiles 0.6.0 multiple profiles 1", "0.6.0/two-sampled.speedscope.json", 0 },
    { "importSpeedscopeProfiles 0.6.0 multiple profiles 2", "0.6.0/two-sampled.speedscope.json", 1 },
  };
  g_autofree char *snap_path = flame_test_corpus_path ("speedscope/src/lib/__snapshots__/file-format.test.ts.snap");
  g_autoptr(GPtrArray) snaps = NULL;

  if (snap_path == NULL)
    return;
  snaps = flame_snap_load (snap_path);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *rel = g_build_filename ("speedscope/sample/profiles/speedscope", cases[i].file, NULL);
      g_autofree char *path = flame_test_corpus_path (rel);
      FlameLoadOptions opts = { cases[i].profile, -1 };
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = NULL;
      FlameSnap *snap = flame_snap_find (snaps, cases[i].title);

      p = flame_load_file_full (path, &opts, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (flame_profile_get_format (p), ==, FLAME_FORMAT_SPEEDSCOPE);
      flame_snap_assert (snap, p, unit_scale (p), FALSE);
      g_assert_cmpstr (flame_profile_get_metadata (p, "profile-name"), ==, snap->name);
      g_test_message ("%s: %u frames agree with speedscope", cases[i].file, snap->names->len);
    }
}

static void
test_invalid_corpus (void)
{
  const char *files[] = { "incomplete-trace.json", "out-of-order-events.json" };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *rel = g_build_filename ("speedscope/sample/profiles/speedscope/invalid", files[i], NULL);
      g_autofree char *path = flame_test_corpus_path (rel);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = NULL;

      if (path == NULL)
        return;
      p = flame_load_file (path, NULL, NULL, NULL, &error);
      g_assert_null (p);
      g_assert_error (error, FLAME_ERROR, FLAME_ERROR_PARSE);
      g_assert_nonnull (strstr (error->message, ": byte "));
    }
}

/* py-spy: "profiles" before "shared", nulls everywhere, float weights in
 * seconds, several profiles; the first with samples is loaded. */
static void
test_pyspy (void)
{
  const char *text =
    "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
    "\"profiles\":["
    "{\"type\":\"sampled\",\"name\":\"Thread 1 \\\"idle\\\"\",\"unit\":\"seconds\",\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]},"
    "{\"type\":\"sampled\",\"name\":\"Thread 2 \\\"MainThread\\\"\",\"unit\":\"seconds\",\"startValue\":0,\"endValue\":0.03,"
    "\"samples\":[[0,1],[0,1],[0,2]],\"weights\":[0.01,0.01,0.01]}],"
    "\"shared\":{\"frames\":[{\"name\":\"<module>\",\"file\":\"app.py\",\"line\":null,\"col\":null},"
    "{\"name\":\"work\",\"file\":\"app.py\",\"line\":3,\"col\":null},{\"name\":\"sleep\",\"file\":null}]},"
    "\"activeProfileIndex\":null,\"exporter\":\"py-spy@0.3.14\",\"name\":\"py-spy profile\"}";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text (text, &error);
  GPtrArray *threads;

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (p), ==, FLAME_UNIT_NANOSECONDS);
  g_assert_cmpfloat_with_epsilon (flame_profile_get_total_weight (p, 0), 3e7, 1e-3);
  g_assert_cmpfloat (flame_profile_get_samples (p, 0), ==, 3);
  g_assert_cmpstr (flame_profile_get_metadata (p, "exporter"), ==, "py-spy@0.3.14");
  g_assert_cmpstr (flame_profile_get_metadata (p, "selected-profile"), ==, "1");
  threads = flame_profile_get_threads (p);
  g_assert_cmpuint (threads->len, ==, 2);
  g_assert_cmpstr (((FlameThread *) g_ptr_array_index (threads, 1))->name, ==, "Thread 2 \"MainThread\"");
  g_assert_cmpfloat (((FlameThread *) g_ptr_array_index (threads, 1))->samples, ==, 3);
  g_assert_cmpuint (flame_frames_count (flame_profile_get_frames (p)), ==, 3);
  /* no interval in the file: 10 ms, a sample's weight (py-spy's 100 Hz),
   * for info and compare alike, not an assumed 1 ms */
  {
    gboolean assumed = TRUE;

    g_assert_cmpfloat_with_epsilon (flame_profile_get_effective_interval_ms (p, 0, 1, &assumed), 10, 1e-9);
    g_assert_false (assumed);
  }
}

static void
test_roundtrip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = NULL;
  g_autoptr(FlameProfile) q = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) f1 = g_string_new (NULL);
  g_autoptr(GString) f2 = g_string_new (NULL);
  const char *stacks[] = { "a.c:1:main;b.c:2:work", "a.c:1:main;b.c:2:work", "a.c:1:main;x \"q\"\\\n", NULL };

  p = flame_test_profile (stacks);
  flame_profile_set_metadata (p, "command", "python3 app.py --x \"y\"");
  flame_profile_set_metadata (p, "cwd", "/tmp");
  g_assert_true (flame_speedscope_write (p, out, &error));
  g_assert_no_error (error);
  q = load_text (out->str, &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_format (q), ==, FLAME_FORMAT_SPEEDSCOPE);
  g_assert_cmpstr (flame_profile_get_metadata (q, "command"), ==, "python3 app.py --x \"y\"");
  g_assert_cmpstr (flame_profile_get_metadata (q, "cwd"), ==, "/tmp");
  g_assert_cmpfloat (flame_profile_get_interval_ms (q), ==, 1.0);
  g_assert_cmpint (flame_profile_get_unit (q), ==, FLAME_UNIT_SAMPLES);
  flame_profile_write_folded (p, f1);
  flame_profile_write_folded (q, f2);
  g_assert_cmpstr (f1->str, ==, f2->str);
  g_assert_cmpstr (f1->str, ==, "# flamediff-folded unit=samples interval_ms=1\n"
                                "main;work 2\nmain;x \"q\"\\\n 1\n");

  /* time-weighted stacks listed once each keep the number of samples
   * behind them (the noise test needs it) */
  {
    g_autoptr(FlameProfile) r = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
    g_autoptr(FlameProfile) t = NULL;
    g_autoptr(GString) json = g_string_new (NULL);
    guint32 frames[2];

    flame_profile_set_unit (r, FLAME_UNIT_NANOSECONDS);
    frames[0] = flame_profile_intern_frame (r, "main", 4, NULL, 0, 0, 0);
    frames[1] = flame_profile_intern_frame (r, "hot", 3, NULL, 0, 0, 0);
    flame_profile_add_stack (r, 0, frames, 2, 28e6);
    flame_profile_add_stack (r, 0, frames, 1, 4e6);
    flame_profile_add_samples (r, 0, 8);
    flame_profile_finish (r);
    g_assert_true (flame_speedscope_write (r, json, &error));
    t = load_text (json->str, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (flame_profile_get_samples (t, 0), ==, 8);
    g_assert_cmpfloat (flame_profile_get_total_ms (t, 0, 1.0), ==, 32);
  }
}

typedef struct { const char *text; const char *what; } Bad;

static void
test_malformed (void)
{
  static const Bad bad[] = {
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0,", "truncated" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0,7]],\"weights\":[1]}]}", "out of range" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0,4000000000]],\"weights\":[1]}],\"shared\":{\"frames\":[{\"name\":\"a\"}]}}", "out of range" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[-1]],\"weights\":[1]}]}", "non-negative" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1,2]}]}", "weights" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":7}]},\"profiles\":[]}", "must be a string" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"parsecs\",\"samples\":[[0]],\"weights\":[1]}]}", "unit" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[\"x\"]}]}", "number" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[],\"weights\":[]}]}", "no profile" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\", \"shared\": {\"frames\": [}", "invalid JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = load_text (bad[i].text, &error);

      g_assert_null (p);
      g_assert_nonnull (error);
      if (strstr (error->message, bad[i].what) == NULL || strstr (error->message, "test.json") == NULL)
        g_error ("case %u: “%s” does not mention “%s”", i, error->message, bad[i].what);
      if (strcmp (bad[i].what, "no profile") != 0 && strstr (error->message, "byte ") == NULL)
        g_error ("case %u: “%s” has no position", i, error->message);
    }

  /* deep nesting: an error at the limit, not a stack overflow */
  {
    g_autoptr(GString) s = g_string_new ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"x\":");
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) p = NULL;

    for (guint i = 0; i < 100000; i++)
      g_string_append_c (s, '[');
    p = load_text (s->str, &error);
    g_assert_null (p);
    g_assert_error (error, FLAME_ERROR, FLAME_ERROR_TOO_LARGE);
    g_assert_nonnull (strstr (error->message, "nested deeper"));
  }

  /* invalid UTF-8 in names: loaded, made valid, with a warning */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) p = load_text ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                                           "\"shared\":{\"frames\":[{\"name\":\"a\xff\xfe\"}]},"
                                           "\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1]}]}",
                                           &error);
    g_assert_no_error (error);
    g_assert_cmpstr (flame_frames_get_name (flame_profile_get_frames (p), 0), ==, "a??");
    g_assert_cmpuint (flame_profile_get_warnings (p)->len, ==, 1);
  }

  /* a profile index past the end */
  {
    FlameLoadOptions opts = { 5, -1 };
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) p = load_text_opts ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                                                "\"shared\":{\"frames\":[{\"name\":\"a\"}]},"
                                                "\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1]}]}",
                                                -1, &opts, &error);
    g_assert_null (p);
    g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  }
}

static void
test_cancel (void)
{
  g_autoptr(GString) s = g_string_new ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                                       "\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
                                       "\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = NULL;

  for (guint i = 0; i < 1000000; i++)
    g_string_append (s, i ? ",[0,1]" : "[0,1]");
  g_string_append (s, "],\"weights\":[");
  for (guint i = 0; i < 1000000; i++)
    g_string_append (s, i ? ",1" : "1");
  g_string_append (s, "]}]}");
  bytes = g_bytes_new (s->str, s->len);
  g_cancellable_cancel (cancellable);
  p = flame_load_bytes ("big.json", bytes, cancellable, NULL, NULL, &error);
  g_assert_null (p);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  p = flame_load_bytes ("big.json", bytes, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (p, 0), ==, 1000000);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/speedscope/snapshots", test_snapshots);
  g_test_add_func ("/speedscope/invalid-corpus", test_invalid_corpus);
  g_test_add_func ("/speedscope/py-spy", test_pyspy);
  g_test_add_func ("/speedscope/roundtrip", test_roundtrip);
  g_test_add_func ("/speedscope/malformed", test_malformed);
  g_test_add_func ("/speedscope/cancel", test_cancel);
  return g_test_run ();
}
