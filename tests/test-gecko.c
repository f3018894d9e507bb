/* test-gecko.c: Firefox Profiler / Gecko profiles.
 *
 * No expected outputs exist for these files, so the expected totals and
 * per-function weights are computed here by a second, deliberately
 * naive reader (json-glib's DOM, tables walked row by row), and compared
 * with the streaming loader; a few values are also checked by hand.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "flame-error.h"
#include "flame-loader.h"
#include "flame-test-utils.h"

/* ---- the reference reader ---------------------------------------------- */

typedef struct
{
  GHashTable *self;    /* name -> gdouble* */
  GHashTable *total;   /* name -> gdouble* */
  gdouble     sum;
  GArray     *thread_sums;   /* gdouble, threads with samples, file order */
} Ref;

/* Cell @row of column @name: through the schema for raw tables. */
static JsonNode *
ref_cell (JsonObject *table,
          const char *name,
          guint       row)
{
  if (table == NULL)
    return NULL;
  if (json_object_has_member (table, "schema"))
    {
      JsonObject *schema = json_object_get_object_member (table, "schema");
      JsonArray *data = json_object_get_array_member (table, "data");
      JsonArray *r;
      gint64 pos;

      if (!json_object_has_member (schema, name) || row >= json_array_get_length (data))
        return NULL;
      pos = json_object_get_int_member (schema, name);
      r = json_array_get_array_element (data, row);
      return pos < json_array_get_length (r) ? json_array_get_element (r, pos) : NULL;
    }
  if (!json_object_has_member (table, name) ||
      JSON_NODE_HOLDS_NULL (json_object_get_member (table, name)))
    return NULL;
  {
    JsonArray *col = json_object_get_array_member (table, name);
    return row < json_array_get_length (col) ? json_array_get_element (col, row) : NULL;
  }
}

static guint
ref_rows (JsonObject *table,
          const char *name)
{
  if (json_object_has_member (table, "schema"))
    return json_array_get_length (json_object_get_array_member (table, "data"));
  return json_array_get_length (json_object_get_array_member (table, name));
}

static gboolean
ref_null (JsonNode *n)
{
  return n == NULL || JSON_NODE_HOLDS_NULL (n);
}

static void
ref_add (GHashTable *h,
         const char *name,
         gdouble     w)
{
  gdouble *v = g_hash_table_lookup (h, name);

  if (v == NULL)
    {
      v = g_new0 (gdouble, 1);
      g_hash_table_insert (h, g_strdup (name), v);
    }
  *v += w;
}

static JsonObject *
ref_table (JsonObject *thread,
           JsonObject *shared,
           const char *name)
{
  if (json_object_has_member (thread, name))
    return json_object_get_object_member (thread, name);
  if (shared != NULL && json_object_has_member (shared, name))
    return json_object_get_object_member (shared, name);
  return NULL;
}

static void
ref_thread (Ref        *ref,
            JsonObject *thread,
            JsonObject *shared)
{
  JsonObject *samples = json_object_get_object_member (thread, "samples");
  JsonObject *stacks = ref_table (thread, shared, "stackTable");
  JsonObject *frames = ref_table (thread, shared, "frameTable");
  JsonObject *funcs = ref_table (thread, shared, "funcTable");
  JsonArray *strings;
  gdouble sum = 0;
  guint n;

  if (json_object_has_member (thread, "stringTable"))
    strings = json_object_get_array_member (thread, "stringTable");
  else if (json_object_has_member (thread, "stringArray"))
    strings = json_object_get_array_member (thread, "stringArray");
  else
    strings = json_object_get_array_member (shared, "stringArray");

  n = ref_rows (samples, "stack");
  if (n == 0)
    return;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *s = ref_cell (samples, "stack", i);
      JsonNode *wn = ref_cell (samples, "weight", i);
      gdouble w = ref_null (wn) ? 1 : json_node_get_double (wn);
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      gint64 st;
      gboolean leaf = TRUE;

      if (ref_null (s))
        continue;
      sum += w;
      for (st = json_node_get_int (s); st >= 0;)
        {
          gint64 fr = json_node_get_int (ref_cell (stacks, "frame", st));
          const char *name;
          JsonNode *p;

          if (funcs != NULL && !ref_null (ref_cell (frames, "func", fr)))
            {
              gint64 fn = json_node_get_int (ref_cell (frames, "func", fr));
              name = json_array_get_string_element (strings, json_node_get_int (
                                                               ref_cell (funcs, "name", fn)));
            }
          else
            name = json_array_get_string_element (strings, json_node_get_int (
                                                             ref_cell (frames, "location", fr)));
          if (leaf)
            ref_add (ref->self, name, w);
          leaf = FALSE;
          if (!g_hash_table_contains (seen, name))
            ref_add (ref->total, name, w);
          g_hash_table_add (seen, (gpointer) name);
          if ((p = ref_cell (stacks, "prefixOffset", st)) != NULL)
            st = json_node_get_int (p) == 0 ? -1 : st - json_node_get_int (p);
          else
            {
              p = ref_cell (stacks, "prefix", st);
              st = ref_null (p) ? -1 : json_node_get_int (p);
            }
        }
    }
  ref->sum += sum;
  g_array_append_val (ref->thread_sums, sum);
}

static void ref_profile (Ref *ref, JsonObject *profile, JsonObject *shared);

static void
ref_profile_node (Ref        *ref,
                  JsonNode   *node,
                  JsonObject *shared,
                  gboolean    is_thread)
{
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      /* JSON text in a string: a whole child profile */
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      json_parser_load_from_data (parser, json_node_get_string (node), -1, &error);
      g_assert_no_error (error);
      ref_profile (ref, json_node_get_object (json_parser_get_root (parser)), shared);
    }
  else if (is_thread)
    ref_thread (ref, json_node_get_object (node), shared);
  else
    ref_profile (ref, json_node_get_object (node), shared);
}

static void
ref_profile (Ref        *ref,
             JsonObject *profile,
             JsonObject *shared)
{
  /* the same member order as the file: threads and processes interleave
   * the way the loader lists them */
  g_autoptr(GList) members = json_object_get_members (profile);

  if (json_object_has_member (profile, "shared"))
    shared = json_object_get_object_member (profile, "shared");
  for (GList *m = members; m != NULL; m = m->next)
    {
      const char *key = m->data;

      if (strcmp (key, "profile") == 0)
        ref_profile (ref, json_object_get_object_member (profile, key), shared);
      else if (strcmp (key, "threads") == 0 || strcmp (key, "processes") == 0)
        {
          JsonArray *a = json_object_get_array_member (profile, key);

          for (guint i = 0; i < json_array_get_length (a); i++)
            ref_profile_node (ref, json_array_get_element (a, i), shared, key[0] == 't');
        }
    }
}

static void
ref_init (Ref *ref)
{
  ref->self = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ref->total = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ref->sum = 0;
  ref->thread_sums = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

static void
ref_clear (Ref *ref)
{
  g_hash_table_unref (ref->self);
  g_hash_table_unref (ref->total);
  g_array_unref (ref->thread_sums);
}

/* ---- comparing ----------------------------------------------------------- */

static int
compare_desc (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  GHashTable *h = data;
  gdouble *px = g_hash_table_lookup (h, *(char **) a);
  gdouble *py = g_hash_table_lookup (h, *(char **) b);
  gdouble x = px ? *px : 0, y = py ? *py : 0;

  if (x != y)
    return x > y ? -1 : 1;
  return strcmp (*(char **) a, *(char **) b);
}

/* Per-name self and total weights of the loaded profile. */
static void
profile_weights (FlameProfile *p,
                 GHashTable   *self,
                 GHashTable   *total,
                 GHashTable   *n_frames)
{
  FlameFrames *frames = flame_profile_get_frames (p);
  guint n = flame_frames_count (frames);
  g_autofree gdouble *s = g_new0 (gdouble, n);
  g_autofree gdouble *t = g_new0 (gdouble, n);

  flame_profile_ensure_totals (p);
  flame_tree_function_weights (flame_profile_get_tree (p), n, 0, s, t);
  for (guint f = 0; f < n; f++)
    {
      const char *name = flame_frames_get_name (frames, f);

      if (s[f] == 0 && t[f] == 0)
        continue;
      ref_add (self, name, s[f]);
      ref_add (total, name, t[f]);
      ref_add (n_frames, name, 1);
    }
}

/* Loads @path and checks it against the reference reader: the total, every
 * thread's weight, and every function's self and total weight (which
 * includes the top frames). Returns the top frame's name. */
static char *
check_file (const char  *path,
            FlameFormat  format)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = flame_load_file (path, NULL, NULL, NULL, &error);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GHashTable) self = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) total = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) nf = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GPtrArray *threads;
  GHashTableIter it;
  gpointer key, val;
  Ref ref;
  char *top;

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_format (p), ==, format);
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  ref_init (&ref);
  ref_profile (&ref, json_node_get_object (json_parser_get_root (parser)), NULL);

  g_assert_cmpfloat_with_epsilon (flame_profile_get_total_weight (p, 0), ref.sum, 1e-9);
  threads = flame_profile_get_threads (p);
  g_assert_cmpuint (threads->len, ==, ref.thread_sums->len);
  for (guint i = 0; i < threads->len; i++)
    g_assert_cmpfloat_with_epsilon (((FlameThread *) g_ptr_array_index (threads, i))->samples,
                                    g_array_index (ref.thread_sums, gdouble, i), 1e-9);

  profile_weights (p, self, total, nf);
  g_assert_cmpuint (g_hash_table_size (total), ==, g_hash_table_size (ref.total));
  g_hash_table_iter_init (&it, ref.total);
  while (g_hash_table_iter_next (&it, &key, &val))
    {
      gdouble *ours_s = g_hash_table_lookup (self, key);
      gdouble *want_s = g_hash_table_lookup (ref.self, key);
      gdouble *ours_t = g_hash_table_lookup (total, key);

      if (ours_t == NULL)
        g_error ("%s: no frame “%s”", path, (char *) key);
      g_assert_cmpfloat_with_epsilon (ours_s ? *ours_s : 0, want_s ? *want_s : 0, 1e-9);
      /* totals of same-named frames from different files do not add up */
      if (*(gdouble *) g_hash_table_lookup (nf, key) == 1)
        g_assert_cmpfloat_with_epsilon (*ours_t, *(gdouble *) val, 1e-9);
      g_ptr_array_add (names, key);
    }
  g_ptr_array_sort_with_data (names, compare_desc, ref.self);
  g_assert_cmpuint (names->len, >, 0);
  top = g_strdup (g_ptr_array_index (names, 0));
  g_test_message ("%s: total %g, %u threads, %u functions, top self “%s”", path, ref.sum,
                  threads->len, names->len, top);
  ref_clear (&ref);
  return top;
}

static void
test_corpus (void)
{
  static const struct { const char *file; FlameFormat format; const char *top;
  } cases[] = {
    { "profiler/src/test/fixtures/upgrades/gecko-1.json", FLAME_FORMAT_GECKO, "0x100000f84" },
    { "profiler/src/test/fixtures/upgrades/gecko-2.json", FLAME_FORMAT_GECKO, NULL },
    { "profiler/src/test/fixtures/upgrades/processed-1.json", FLAME_FORMAT_FIREFOX_PROCESSED,
      "0x100000f84" },
    { "profiler/src/test/fixtures/upgrades/processed-2.json", FLAME_FORMAT_FIREFOX_PROCESSED,
      NULL },
    { "profiler/src/test/fixtures/upgrades/processed-3.json", FLAME_FORMAT_FIREFOX_PROCESSED,
      NULL },
    { "profiler/src/test/integration/profiler-edit/unsymbolicated.json",
      FLAME_FORMAT_FIREFOX_PROCESSED, "0x43e8" },
    { "profiler/profiler-cli/src/test/fixtures/sourcemap/single.json",
      FLAME_FORMAT_FIREFOX_PROCESSED, "Ajs" },
    /* devtools exports: the raw profile under "profile" */
    { "speedscope/sample/profiles/Firefox/59/firefox.json", FLAME_FORMAT_GECKO,
      "XRE_InitChildProcess" },
    { "speedscope/sample/profiles/Firefox/59/simple-firefox.json", FLAME_FORMAT_GECKO, NULL },
    { "speedscope/sample/profiles/Firefox/61/recursion.json", FLAME_FORMAT_GECKO, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = flame_test_corpus_path (cases[i].file);
      g_autofree char *top = NULL;

      if (path == NULL)
        return;
      top = check_file (path, cases[i].format);
      if (cases[i].top != NULL)
        g_assert_cmpstr (top, ==, cases[i].top);
    }
}

static gdouble
self_of (FlameProfile *p,
         const char   *name,
         const char   *file,
         guint32       line)
{
  FlameFrames *frames = flame_profile_get_frames (p);
  guint n = flame_frames_count (frames);
  g_autofree gdouble *s = g_new0 (gdouble, n);
  g_autofree gdouble *t = g_new0 (gdouble, n);

  flame_profile_ensure_totals (p);
  flame_tree_function_weights (flame_profile_get_tree (p), n, 0, s, t);
  for (guint f = 0; f < n; f++)
    {
      const char *ff = flame_frames_get_file (frames, f);

      if (strcmp (flame_frames_get_name (frames, f), name) == 0 &&
          (file == NULL || g_strcmp0 (ff, file) == 0) &&
          (file == NULL || flame_frames_get (frames, f)->line == line))
        return s[f];
    }
  return -1;
}

/* Values read off the files by hand. */
static void
test_hand_checked (void)
{
  g_autofree char *g1 = flame_test_corpus_path ("profiler/src/test/fixtures/upgrades/gecko-1.json");
  g_autofree char *un = flame_test_corpus_path (
    "profiler/src/test/integration/profiler-edit/unsymbolicated.json");
  g_autofree char *sj = flame_test_corpus_path (
    "profiler/profiler-cli/src/test/fixtures/sourcemap/single.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) a = NULL;
  g_autoptr(FlameProfile) b = NULL;
  g_autoptr(FlameProfile) c = NULL;
  g_autoptr(FlameProfile) d = NULL;
  FlameLoadOptions one = { -1, 6274156 };
  GPtrArray *threads;

  if (g1 == NULL || un == NULL || sj == NULL)
    return;

  /* gecko-1: samples use stacks 1,2,2,3,0,1,4 in each of 3 threads (the
   * third is a child process embedded as JSON text) */
  a = flame_load_file (g1, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (a, 0), ==, 21);
  g_assert_cmpfloat (self_of (a, "0x100000f84", NULL, 0), ==, 6);
  g_assert_cmpfloat (self_of (a, "0x100001a45", NULL, 0), ==, 6);
  g_assert_cmpfloat (self_of (a, "frobnicate (chrome://blargh:34)", NULL, 0), ==, 3);
  g_assert_cmpfloat (flame_profile_get_interval_ms (a), ==, 1);
  threads = flame_profile_get_threads (a);
  g_assert_cmpuint (threads->len, ==, 3);
  g_assert_cmpstr (((FlameThread *) g_ptr_array_index (threads, 1))->name, ==, "Compositor");

  /* v49: weights 1+11+1+9+1+1+11+1+11+1+12 = 60 on the main thread, all
   * on stack 3, whose frame's function is "0x2bac" */
  b = flame_load_file (un, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (b, 0), ==, 236);
  g_assert_cmpuint (flame_profile_get_threads (b)->len, ==, 6);
  c = flame_load_file_full (un, &one, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (c, 0), ==, 60);
  g_assert_cmpfloat (self_of (c, "0x2bac", NULL, 0), ==, 60);
  /* the other threads are still listed */
  g_assert_cmpuint (flame_profile_get_threads (c)->len, ==, 6);

  /* v68: shared tables, prefixOffset, the file name through shared.sources */
  d = flame_load_file (sj, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (self_of (d, "Ajs", "bundle.js", 1), ==, 1);
}

/* What CPython 3.15's profiling.sampling --gecko writes (formats.md §5.3):
 * v57 processed layout, per-thread tables, strings in shared.stringArray. */
static const char cpython_gecko[] =
  "{\"meta\":{\"interval\":0.5,\"startTime\":123456.7,\"version\":32,\"preprocessedProfileVersion\":57,"
  "\"processType\":0,\"product\":\"Python 3.15\",\"importedFrom\":\"Tachyon Sampling Profiler\","
  "\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
  "{\"name\":\"Python\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]}],\"markerSchema\":[]},"
  "\"libs\":[],"
  "\"threads\":["
  "{\"name\":\"Thread-100\",\"processType\":\"default\",\"processName\":\"Python\",\"pid\":\"4242\",\"tid\":100,"
  "\"isMainThread\":true,\"registerTime\":0,\"unregisterTime\":null,"
  "\"samples\":{\"stack\":[1,2,2,1],\"time\":[0,0.5,1,1.5],\"eventDelay\":[null,null,null,null],"
  "\"weight\":null,\"weightType\":\"samples\",\"length\":4},"
  "\"stackTable\":{\"frame\":[0,1,2],\"prefix\":[null,0,1],\"category\":[1,1,1],\"subcategory\":[0,0,0],\"length\":3},"
  "\"frameTable\":{\"address\":[-1,-1,-1],\"inlineDepth\":[0,0,0],\"category\":[1,1,1],\"subcategory\":[0,0,0],"
  "\"func\":[0,1,2],\"nativeSymbol\":[null,null,null],\"innerWindowID\":[null,null,null],"
  "\"implementation\":[null,null,null],\"optimizations\":[null,null,null],\"line\":[1,5,null],"
  "\"column\":[null,null,null],\"length\":3},"
  "\"funcTable\":{\"name\":[0,2,3],\"isJS\":[true,true,false],\"relevantForJS\":[false,false,false],"
  "\"resource\":[0,0,1],\"fileName\":[1,1,4],\"lineNumber\":[1,4,null],\"columnNumber\":[null,null,null],\"length\":3},"
  "\"resourceTable\":{\"lib\":[null,null],\"name\":[1,4],\"host\":[null,null],\"type\":[1,1],\"length\":2},"
  "\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],\"length\":0},"
  "\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],\"phase\":[],\"category\":[],\"length\":0}},"
  "{\"name\":\"Thread-101\",\"processType\":\"default\",\"processName\":\"Python\",\"pid\":\"4242\",\"tid\":101,"
  "\"isMainThread\":false,"
  "\"samples\":{\"stack\":[0,null,0],\"time\":[0,0.5,1],\"eventDelay\":[null,null,null],"
  "\"weight\":null,\"weightType\":\"samples\",\"length\":3},"
  "\"stackTable\":{\"frame\":[0],\"prefix\":[null],\"category\":[1],\"subcategory\":[0],\"length\":1},"
  "\"frameTable\":{\"address\":[-1],\"inlineDepth\":[0],\"category\":[1],\"subcategory\":[0],\"func\":[0],"
  "\"nativeSymbol\":[null],\"innerWindowID\":[null],\"implementation\":[null],\"optimizations\":[null],"
  "\"line\":[7],\"column\":[null],\"length\":1},"
  "\"funcTable\":{\"name\":[5],\"isJS\":[true],\"relevantForJS\":[false],\"resource\":[0],\"fileName\":[1],"
  "\"lineNumber\":[7],\"columnNumber\":[null],\"length\":1},"
  "\"resourceTable\":{\"lib\":[null],\"name\":[1],\"host\":[null],\"type\":[1],\"length\":1},"
  "\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],\"phase\":[],\"category\":[],\"length\":0}}],"
  "\"pages\":[],\"counters\":[],"
  "\"shared\":{\"stringArray\":[\"<module>\",\"app.py\",\"main\",\"sleep\",\"<native>\",\"worker\"],"
  "\"sources\":{\"length\":0,\"uuid\":[],\"filename\":[]}}}";

static FlameProfile *
load_text (const char              *text,
           const FlameLoadOptions  *opts,
           GError                 **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));

  return flame_load_bytes_full ("test.json", bytes, opts, NULL, NULL, NULL, error);
}

static void
test_cpython (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text (cpython_gecko, NULL, &error);
  g_autoptr(FlameProfile) one = NULL;
  FlameLoadOptions opts = { -1, 101 };
  GPtrArray *threads;
  FlameThread *t;

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_format (p), ==, FLAME_FORMAT_FIREFOX_PROCESSED);
  g_assert_cmpint (flame_profile_get_unit (p), ==, FLAME_UNIT_SAMPLES);
  g_assert_cmpfloat (flame_profile_get_interval_ms (p), ==, 0.5);
  /* 4 + 2 samples with a stack; the one without is left out */
  g_assert_cmpfloat (flame_profile_get_total_weight (p, 0), ==, 6);
  g_assert_cmpfloat (self_of (p, "sleep", "<native>", 0), ==, 2);
  g_assert_cmpfloat (self_of (p, "main", "app.py", 4), ==, 2);
  g_assert_cmpfloat (self_of (p, "<module>", "app.py", 1), ==, 0);
  g_assert_cmpfloat (self_of (p, "worker", "app.py", 7), ==, 2);
  g_assert_cmpuint (flame_profile_get_warnings (p)->len, ==, 1);
  threads = flame_profile_get_threads (p);
  g_assert_cmpuint (threads->len, ==, 2);
  t = g_ptr_array_index (threads, 0);
  g_assert_cmpstr (t->name, ==, "Thread-100");
  g_assert_cmpint (t->pid, ==, 4242);
  g_assert_cmpint (t->tid, ==, 100);
  g_assert_cmpfloat (t->samples, ==, 4);
  g_assert_cmpstr (flame_profile_get_metadata (p, "threads-merged"), ==, "yes");

  one = load_text (cpython_gecko, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_weight (one, 0), ==, 2);
  g_assert_cmpfloat (self_of (one, "sleep", "<native>", 0), ==, -1);
}

static void
test_malformed (void)
{
  static const struct { const char *text; const char *what;
  } bad[] = {
    /* a cyclic prefix chain: 0 -> 1 -> 0 */
    { "{\"meta\":{\"preprocessedProfileVersion\":40},\"threads\":[{\"samples\":{\"stack\":[0]},"
      "\"stackTable\":{\"frame\":[0,0],\"prefix\":[1,0]},\"frameTable\":{\"func\":[0]},"
      "\"funcTable\":{\"name\":[0]},\"stringArray\":[\"a\"]}]}",
      "cycle" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[5]},"
      "\"stackTable\":{\"frame\":[0],\"prefix\":[null]},\"frameTable\":{\"func\":[0]},"
      "\"funcTable\":{\"name\":[0]},\"stringArray\":[\"a\"]}]}",
      "stack 5 is out of range" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[0]},"
      "\"stackTable\":{\"frame\":[0],\"prefix\":[null]},\"frameTable\":{\"func\":[0]},"
      "\"funcTable\":{\"name\":[9]},\"stringArray\":[\"a\"]}]}",
      "string index 9" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[0]},"
      "\"stackTable\":{\"frame\":[0],\"prefixOffset\":[3]},\"frameTable\":{\"func\":[0]},"
      "\"funcTable\":{\"name\":[0]},\"stringArray\":[\"a\"]}]}",
      "prefixOffset 3" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[0]},"
      "\"stackTable\":{\"frame\":[2],\"prefix\":[null]},\"frameTable\":{\"func\":[0]},"
      "\"funcTable\":{\"name\":[0]},\"stringArray\":[\"a\"]}]}",
      "frame 2 is out of range" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[0]},"
      "\"stackTable\":{\"frame\":[0],\"prefix\":[null]},\"frameTable\":{\"func\":[0]},"
      "\"stringArray\":[\"a\"]}]}",
      "no funcTable" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[0]}}]}", "no stackTable" },
    /* raw: schema and data, a cyclic prefix */
    { "{\"meta\":{\"version\":3},\"threads\":[{\"samples\":{\"schema\":{\"stack\":0},\"data\":[[1]]},"
      "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[1,0],[0,0]]},"
      "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0]]},\"stringTable\":[\"x\"]}]}",
      "cycle" },
    { "{\"meta\":{},\"threads\":[{\"samples\":{\"stack\":[0,", "truncated" },
    { "{\"meta\":{},\"threads\":[]}", "no samples" },
    { "{\"meta\":{},\"threads\":[\"{\\\"threads\\\":[\\\"[\\\"]}\"]}", "embedded" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = load_text (bad[i].text, NULL, &error);

      g_assert_null (p);
      g_assert_nonnull (error);
      if (strstr (error->message, bad[i].what) == NULL ||
          strstr (error->message, "test.json") == NULL)
        g_error ("case %u: “%s” does not mention “%s”", i, error->message, bad[i].what);
      /* table errors carry a byte position */
      if (i < 6 && strstr (error->message, "byte ") == NULL)
        g_error ("case %u: “%s” has no position", i, error->message);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gecko/corpus", test_corpus);
  g_test_add_func ("/gecko/hand-checked", test_hand_checked);
  g_test_add_func ("/gecko/cpython", test_cpython);
  g_test_add_func ("/gecko/malformed", test_malformed);
  return g_test_run ();
}
