/* test-speedscope.c: the speedscope loader and writer, against
 * speedscope's own snapshot tests, plus malformed input.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "flame-error.h"
#include "flame-json.h"
#include "flame-json-write.h"
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
  static const struct { const char *title; const char *file; gint profile;
  } cases[] = {
    { "importSpeedscopeProfiles 0.0.1 evented profile (no pretty print) 1",
      "0.0.1/simple-no-pretty-print.speedscope.json", -1 },
    { "importSpeedscopeProfiles 0.0.1 evented profile 1", "0.0.1/simple.speedscope.json", -1 },
    { "importSpeedscopeProfiles 0.1.2 sampled profile 1", "0.1.2/simple-sampled.speedscope.json",
      -1 },
    { "importSpeedscopeProfiles 0.6.0 multiple profiles 1", "0.6.0/two-sampled.speedscope.json",
      0 },
    { "importSpeedscopeProfiles 0.6.0 multiple profiles 2", "0.6.0/two-sampled.speedscope.json",
      1 },
  };
  g_autofree char *snap_path = flame_test_corpus_path (
    "speedscope/src/lib/__snapshots__/file-format.test.ts.snap");
  g_autoptr(GPtrArray) snaps = NULL;

  if (snap_path == NULL)
    return;
  snaps = flame_snap_load (snap_path);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *rel = g_build_filename ("speedscope/sample/profiles/speedscope",
                                               cases[i].file, NULL);
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
      g_autofree char *rel = g_build_filename ("speedscope/sample/profiles/speedscope/invalid",
                                               files[i], NULL);
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
  g_assert_cmpstr (((FlameThread *) g_ptr_array_index (threads, 1))->name, ==,
                   "Thread 2 \"MainThread\"");
  g_assert_cmpfloat (((FlameThread *) g_ptr_array_index (threads, 1))->samples, ==, 3);
  g_assert_cmpuint (flame_frames_count (flame_profile_get_frames (p)), ==, 3);
  /* no interval in the file: 10 ms, a sample's weight (py-spy's 100 Hz),
   * for info and compare alike, not an assumed 1 ms */
  {
    gboolean assumed = TRUE;

    g_assert_cmpfloat_with_epsilon (flame_profile_get_effective_interval_ms (p, 0, 1, &assumed), 10,
                                    1e-9);
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
  const char *stacks[] = { "a.c:1:main;b.c:2:work", "a.c:1:main;b.c:2:work",
                           "a.c:1:main;x \"q\"\\\n", NULL };

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
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0,",
      "truncated" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0,7]],\"weights\":[1]}]}",
      "out of range" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0,4000000000]],\"weights\":[1]}],\"shared\":{\"frames\":[{\"name\":\"a\"}]}}",
      "out of range" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[-1]],\"weights\":[1]}]}",
      "non-negative" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[1,2]}]}",
      "weights" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":7}]},\"profiles\":[]}",
      "must be a string" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"parsecs\",\"samples\":[[0]],\"weights\":[1]}]}",
      "unit" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[0]],\"weights\":[\"x\"]}]}",
      "number" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[],\"weights\":[]}]}",
      "no profile" },
    { "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\", \"shared\": {\"frames\": [}",
      "invalid JSON" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = load_text (bad[i].text, &error);

      g_assert_null (p);
      g_assert_nonnull (error);
      if (strstr (error->message, bad[i].what) == NULL ||
          strstr (error->message, "test.json") == NULL)
        g_error ("case %u: “%s” does not mention “%s”", i, error->message, bad[i].what);
      if (strcmp (bad[i].what, "no profile") != 0 && strstr (error->message, "byte ") == NULL)
        g_error ("case %u: “%s” has no position", i, error->message);
    }

  /* deep nesting: an error at the limit, not a stack overflow */
  {
    g_autoptr(GString) s = g_string_new (
      "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"x\":");
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
    g_autoptr(FlameProfile) p = load_text (
      "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
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
    g_autoptr(FlameProfile) p = load_text_opts (
      "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
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
  g_autoptr(GString) s =
    g_string_new ("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
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


/* A mapped file larger than the parser's release lag (16 MB): the pages
 * behind it are given back while it loads, and the result is what the
 * same text gives from memory */
static void
test_large_mapped (void)
{
  static const char *const stacks[] = { "[0,1]", "[0,2]", "[0,1,2]" };
  g_autoptr(GString) s = g_string_new (
    "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
    "\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]},"
    "\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"name\":\"p\",\"samples\":[");
  g_autofree char *dir = g_dir_make_tmp ("flamediff-json-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "big.speedscope.json", NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FlameProfile) mapped = NULL;
  g_autoptr(FlameProfile) memory = NULL;
  g_autoptr(GError) error = NULL;
  const guint n = 6000000;
  FlameTree *tm, *tb;

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (s, ',');
      g_string_append (s, stacks[i % 3]);
    }
  g_string_append (s, "],\"weights\":[");
  for (guint i = 0; i < n; i++)
    g_string_append (s, i % 3 == 0 ? (i ? ",1" : "1") : i % 3 == 1 ? ",2" : ",3");
  g_string_append (s, "]}]}");
  g_assert_cmpuint (s->len, >, 40 << 20);
  g_assert_true (g_file_set_contents (path, s->str, s->len, &error));

  mapped = flame_load_file (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  bytes = g_bytes_new (s->str, s->len);
  memory = flame_load_bytes ("big.json", bytes, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpfloat (flame_profile_get_total_weight (mapped, 0), ==, 2.0 * n);
  g_assert_cmpfloat (flame_profile_get_samples (mapped, 0), ==, 2.0 * n);
  tm = flame_profile_get_tree (mapped);
  tb = flame_profile_get_tree (memory);
  g_assert_cmpuint (tm->n_nodes, ==, 5);   /* root, a, a;b, a;c, a;b;c */
  g_assert_cmpuint (tm->n_nodes, ==, tb->n_nodes);
  for (guint32 i = 0; i < tm->n_nodes; i++)
    {
      g_assert_cmpuint (tm->nodes[i].frame, ==, tb->nodes[i].frame);
      g_assert_cmpuint (tm->nodes[i].parent, ==, tb->nodes[i].parent);
      g_assert_cmpfloat (tm->self[0][i], ==, tb->self[0][i]);
    }
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* ---- the JSON parser itself (flame-json.c) ---- */

typedef struct
{
  GString  *log;
  gboolean  sink;    /* an int sink on every array */
  gboolean  keys;    /* keys delivered, from the first object on */
  gint      stop_at; /* the event count at which to fail, -1 never */
  guint     n;
} Trace;

static gboolean
trace_int (FlameJson  *json,
           guint       depth,
           gint64      value,
           gpointer    user_data,
           GError    **error)
{
  Trace *tr = user_data;

  g_string_append_printf (tr->log, "I%" G_GINT64_FORMAT "@%u.%" G_GINT64_FORMAT " ", value, depth,
                          flame_json_level (json, depth)->index);
  return TRUE;
}

static gboolean
trace_event (FlameJson            *json,
             const FlameJsonValue *v,
             gpointer              user_data,
             GError              **error)
{
  Trace *tr = user_data;
  guint depth = flame_json_depth (json);
  const FlameJsonLevel *l = depth > 0 ? flame_json_level (json, depth) : NULL;

  if (tr->stop_at >= 0 && tr->n++ == (guint) tr->stop_at)
    {
      flame_json_set_error (json, error, FLAME_ERROR_PARSE, "stopped here");
      return FALSE;
    }
  /* where the value is: its key, or its index in the array */
  if (l != NULL && v->type <= FLAME_JSON_STRING)
    {
      if (l->is_array)
        g_string_append_printf (tr->log, "%" G_GINT64_FORMAT "=", l->index);
      else
        g_string_append_printf (tr->log, "%s=", l->key_len == 255 ? "?" : l->key);
    }
  switch (v->type)
    {
    case FLAME_JSON_NULL:        g_string_append (tr->log, "null "); break;
    case FLAME_JSON_BOOL:        g_string_append (tr->log, v->b ? "true " : "false "); break;
    case FLAME_JSON_INT:
      g_string_append_printf (tr->log, "i%" G_GINT64_FORMAT " ", v->i);
      break;
    case FLAME_JSON_DOUBLE:
      g_string_append_printf (tr->log, "d%g/%" G_GINT64_FORMAT " ", v->d, v->i);
      break;
    case FLAME_JSON_STRING:
    case FLAME_JSON_KEY:
      g_string_append (tr->log, v->type == FLAME_JSON_KEY ? "k'" : "'");
      for (gsize i = 0; i < v->len; i++)
        if ((guchar) v->str[i] < 0x20 || (guchar) v->str[i] >= 0x7f)
          g_string_append_printf (tr->log, "\\x%02x", (guchar) v->str[i]);
        else
          g_string_append_c (tr->log, v->str[i]);
      g_string_append (tr->log, "' ");
      break;
    case FLAME_JSON_START_MAP:
      g_string_append (tr->log, "{ ");
      flame_json_set_deliver_keys (json, tr->keys);
      break;
    case FLAME_JSON_END_MAP:     g_string_append (tr->log, "} "); break;
    case FLAME_JSON_START_ARRAY:
      g_string_append (tr->log, "[ ");
      if (tr->sink)
        flame_json_set_int_sink (json, trace_int);
      break;
    case FLAME_JSON_END_ARRAY:   g_string_append (tr->log, "] "); break;
    default:                     g_assert_not_reached ();
    }
  return TRUE;
}

/* The events of @text, or "ERR: message" */
static char *
trace_text (const char     *text,
            gsize           len,
            FlameJsonFlags  flags,
            gboolean        sink,
            gboolean        keys,
            gint            stop_at)
{
  FlameInput in = { .name = "t.json", .data = text, .len = len };
  Trace tr = { g_string_new (NULL), sink, keys, stop_at, 0 };
  g_autoptr(GError) error = NULL;
  gboolean ok;

  ok = flame_json_parse (&in, flags, trace_event, &tr, &error);
  g_assert_true (ok == (error == NULL));
  if (!ok)
    {
      g_string_free (tr.log, TRUE);
      return g_strconcat ("ERR: ", error->message, NULL);
    }
  if (tr.log->len > 0)
    g_string_truncate (tr.log, tr.log->len - 1);
  return g_string_free (tr.log, FALSE);
}

static void
test_json_parser (void)
{
  static const struct
  {
    const char *text;
    guint flags;
    gboolean sink;
    const char *want;
  } cases[] = {
    /* values, paths and indices */
    { "{\"a\":[1,-2,3.5,1e3,true,false,null,\"x\"],\"b\":{}}", 0, FALSE,
      "{ [ 0=i1 1=i-2 2=d3.5/9223372036854775807 3=d1000/1000 4=true 5=false 6=null 7='x' ] { } }" },
    { " [ ] ", 0, FALSE, "[ ]" },
    { "\xef\xbb\xbf{\"k\" : 5 }", 0, FALSE, "{ k=i5 }" },
    { "7", 0, FALSE, "i7" },
    /* 18 digits are an integer, 19 a double (still exact here) */
    { "[123456789012345678,1234567890123456789,-0]", 0, FALSE,
      "[ 0=i123456789012345678 1=d1.23457e+18/1234567890123456768 2=i0 ]" },
    /* escapes, surrogate pairs, a lone surrogate, a NUL */
    { "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\",\"\\u00e9\\ud83d\\ude00\",\"\\udc00x\",\"a\\u0000b\"]",
      0, FALSE,
      "[ 0='a\"b\\c/d\\x08\\x0c\\x0a\\x0d\\x09' 1='\\xc3\\xa9\\xf0\\x9f\\x98\\x80' 2='?x' 3='a\\x00b' ]" },
    /* keys: escaped, too long for a level, with a NUL (never matched) */
    { "{\"\\u0061\":1,\"0123456789012345678901234567890123456789012345678\":2,\"a\\u0000\":3}", 0,
      FALSE, "{ a=i1 ?=i2 ?=i3 }" },
    /* an int sink takes the integers directly in its array, the rest
     * goes to the callback; indices keep counting. One sink at a time:
     * the inner array's replaces the outer's and ends with it */
    { "[1, 2 ,3.5,\"s\",[4],5]", 0, TRUE,
      "[ I1@1.0 I2@1.1 2=d3.5/9223372036854775807 3='s' [ I4@2.0 ] 5=i5 ]" },
    /* errors */
    { "[01]", 0, FALSE, "ERR: t.json: byte 2: invalid JSON (“,” or “]” was expected)" },
    { "[1.]", 0, FALSE, "ERR: t.json: byte 1: invalid JSON (a malformed number)" },
    { "[-]", 0, FALSE, "ERR: t.json: byte 1: invalid JSON (a malformed number)" },
    { "[1e]", 0, FALSE, "ERR: t.json: byte 1: invalid JSON (a malformed number)" },
    { "[1] x", 0, FALSE,
      "ERR: t.json: byte 4: invalid JSON (text after the end of the JSON value)" },
    { "[1,]", 0, FALSE, "ERR: t.json: byte 3: invalid JSON (a value was expected)" },
    { "{\"a\" 1}", 0, FALSE, "ERR: t.json: byte 5: invalid JSON (“:” was expected after a key)" },
    { "{1:2}", 0, FALSE, "ERR: t.json: byte 1: invalid JSON (a key was expected)" },
    { "[\"a\tb\"]", 0, FALSE,
      "ERR: t.json: byte 3: invalid JSON (a control character in a string)" },
    { "[\"a\\x\"]", 0, FALSE,
      "ERR: t.json: byte 3: invalid JSON (a string has an unknown escape)" },
    { "[\"\\u12g4\"]", 0, FALSE,
      "ERR: t.json: byte 2: invalid JSON (a \\u escape needs four hex digits)" },
    { "[tru]", 0, FALSE, "ERR: t.json: byte 1: invalid JSON (an unknown word)" },
    { "[1}", 0, FALSE, "ERR: t.json: byte 2: invalid JSON (“,” or “]” was expected)" },
    { "", 0, FALSE, "ERR: t.json: byte 0: the JSON text is truncated or empty" },
    { "[1,[2", 0, FALSE, "ERR: t.json: byte 5: the JSON text is truncated or empty" },
    { "[\"ab", 0, FALSE, "ERR: t.json: byte 1: invalid JSON (the text ends inside a string)" },
    /* partial: the text may end anywhere; a number at the end is whole */
    { "[1,[2", FLAME_JSON_ALLOW_PARTIAL, FALSE, "[ 0=i1 [ 0=i2" },
    { "[{\"a\":\"xy", FLAME_JSON_ALLOW_PARTIAL, FALSE, "[ {" },
    { "[{\"a\":tr", FLAME_JSON_ALLOW_PARTIAL, FALSE, "[ {" },
    { "[1,", FLAME_JSON_ALLOW_PARTIAL, FALSE, "[ 0=i1" },
    { "", FLAME_JSON_ALLOW_PARTIAL, FALSE, "" },
    { "[1,x", FLAME_JSON_ALLOW_PARTIAL, FALSE,
      "ERR: t.json: byte 3: invalid JSON (a value was expected)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = trace_text (cases[i].text, strlen (cases[i].text), cases[i].flags,
                                         cases[i].sink, FALSE, -1);

      if (strcmp (got, cases[i].want) != 0)
        g_error ("case %u (%s):\n got  %s\n want %s", i, cases[i].text, got, cases[i].want);
    }

  /* a callback's error stops the parse, with the offset after its token */
  {
    g_autofree char *got = trace_text ("[10,20,30]", 10, 0, FALSE, FALSE, 2);

    g_assert_cmpstr (got, ==, "ERR: t.json: byte 6: stopped here");
  }
  /* keys as events, when asked for */
  {
    g_autofree char *got = trace_text ("{\"a\":{\"b\\n\":null}}", 18, 0, FALSE, TRUE, -1);

    g_assert_cmpstr (got, ==, "{ k'a' { k'b\\x0a' b\n=null } }");
  }
  /* the text is not NUL-terminated: nothing past len is read */
  {
    g_autofree char *got = trace_text ("[12345]", 4, FLAME_JSON_ALLOW_PARTIAL, FALSE, FALSE, -1);

    g_assert_cmpstr (got, ==, "[ 0=i123");
  }
  /* long strings and long runs of integers, across the 8-byte scan and
   * the sink's loop */
  {
    g_autoptr(GString) s = g_string_new ("[\"");
    g_autofree char *got = NULL;

    for (guint i = 0; i < 1000; i++)
      g_string_append_c (s, 'a' + i % 26);
    g_string_append (s, "\\n\",[");
    for (guint i = 0; i < 100000; i++)
      g_string_append_printf (s, i ? ",%u" : "%u", i);
    g_string_append (s, "]]");
    got = trace_text (s->str, s->len, 0, TRUE, FALSE, -1);
    g_assert_true (g_str_has_prefix (got, "[ 0='abcdefghijklmnopqrstuvwxyzabcd"));
    g_assert_nonnull (strstr (got, "xyzabcdefghijkl\\x0a' [ I0@2.0 I1@2.1 "));
    g_assert_true (g_str_has_suffix (got, " I99998@2.99998 I99999@2.99999 ] ]"));
  }
}

/* The one JSON string writer (report, speedscope, memory, Chrome event
 * keys): JSON.stringify's escapes, bytes past the string's NUL kept */
static void
test_json_string (void)
{
  g_autoptr(GString) out = g_string_new (NULL);

  flame_json_append_string (out, "a\"b\\c\b\f\n\r\t\x01\x1f\x7f é");
  g_assert_cmpstr (out->str, ==, "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\x7f é\"");
  g_string_truncate (out, 0);
  flame_json_append_string_len (out, "x\0y", 3);
  g_assert_cmpmem (out->str, out->len, "\"x\\u0000y\"", 10);
  g_string_truncate (out, 0);
  flame_json_append_string (out, "");
  g_assert_cmpstr (out->str, ==, "\"\"");
}

/* The one exact number writer (speedscope weights, perf collapse counts):
 * integers as digits, the rest read back as the same double */
static void
test_number_exact (void)
{
  static const gdouble values[] = { 0.1, 1.0 / 3, 2.5e-7, 123456.789, 1e15, 3e20, -0.5 };
  g_autoptr(GString) out = g_string_new (NULL);

  flame_append_number_exact (out, 42);
  g_string_append_c (out, ' ');
  flame_append_number_exact (out, -7);
  g_string_append_c (out, ' ');
  flame_append_number_exact (out, NAN);
  g_assert_cmpstr (out->str, ==, "42 -7 0");
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_string_truncate (out, 0);
      flame_append_number_exact (out, values[i]);
      g_assert_cmpfloat (g_ascii_strtod (out->str, NULL), ==, values[i]);
    }
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
  g_test_add_func ("/speedscope/json-parser", test_json_parser);
  g_test_add_func ("/speedscope/json-string", test_json_string);
  g_test_add_func ("/speedscope/number-exact", test_number_exact);
  g_test_add_func ("/speedscope/large-mapped", test_large_mapped);
  return g_test_run ();
}
