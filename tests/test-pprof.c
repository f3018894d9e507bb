/* test-pprof.c: pprof profile.proto (corpus files and profiles written
 * here field by field) and legacy binary CPU profiles against pprof's own
 * .string dumps.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-diff.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-test-stacks.h"
#include "flame-test-utils.h"

static FlameProfile *
load_bytes (const char  *name,
            const void  *data,
            gsize        len,
            GError     **error)
{
  g_autoptr(GBytes) raw = g_bytes_new (data, len);
  g_autoptr(GBytes) bytes = flame_decode_bytes (name, raw, NULL, error);

  if (bytes == NULL)
    return NULL;
  return flame_load_bytes (name, bytes, NULL, NULL, NULL, error);
}

static FlameProfile *
load_corpus (const char *relative)
{
  g_autofree char *path = flame_test_corpus_path (relative);
  g_autoptr(GError) error = NULL;
  FlameProfile *profile;

  if (path == NULL)
    return NULL;
  profile = flame_load_file (path, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (profile);
  return profile;
}

/* ---- a protobuf writer, enough for Profile ---- */

static void
put_uint (GByteArray *b,
          guint       field,
          guint64     v)
{
  flame_test_put_varint (b, (guint64) field << 3);
  flame_test_put_varint (b, v);
}

static void
put_bytes (GByteArray *b,
           guint       field,
           const void *data,
           gsize       len)
{
  flame_test_put_varint (b, ((guint64) field << 3) | 2);
  flame_test_put_varint (b, len);
  g_byte_array_append (b, data, len);
}

static void
put_msg (GByteArray *b,
         guint       field,
         GByteArray *m)
{
  put_bytes (b, field, m->data, m->len);
  g_byte_array_unref (m);
}

static void
put_str (GByteArray *b,
         const char *s)
{
  put_bytes (b, 6, s, strlen (s));
}

static GByteArray *
value_type (guint64 type,
            guint64 unit)
{
  GByteArray *m = g_byte_array_new ();
  put_uint (m, 1, type);
  put_uint (m, 2, unit);
  return m;
}

static GByteArray *
function (guint64 id,
          guint64 name,
          guint64 file)
{
  GByteArray *m = g_byte_array_new ();
  put_uint (m, 1, id);
  put_uint (m, 2, name);
  put_uint (m, 4, file);
  return m;
}

/* lines: function ids, leaf (innermost) first */
static GByteArray *
location (guint64        id,
          guint64        mapping,
          guint64        address,
          const guint64 *fns,
          guint          n_fns)
{
  GByteArray *m = g_byte_array_new ();
  put_uint (m, 1, id);
  if (mapping)
    put_uint (m, 2, mapping);
  put_uint (m, 3, address);
  for (guint i = 0; i < n_fns; i++)
    {
      GByteArray *line = g_byte_array_new ();
      put_uint (line, 1, fns[i]);
      put_uint (line, 2, 10 + i);
      put_msg (m, 4, line);
    }
  return m;
}

/* locations leaf first; values packed */
static GByteArray *
sample (const guint64 *locs,
        guint          n_locs,
        const gint64  *values,
        guint          n_values,
        gboolean       packed)
{
  GByteArray *m = g_byte_array_new ();

  if (packed)
    {
      g_autoptr(GByteArray) p = g_byte_array_new ();
      g_autoptr(GByteArray) v = g_byte_array_new ();
      for (guint i = 0; i < n_locs; i++)
        flame_test_put_varint (p, locs[i]);
      for (guint i = 0; i < n_values; i++)
        flame_test_put_varint (v, (guint64) values[i]);
      put_bytes (m, 1, p->data, p->len);
      put_bytes (m, 2, v->data, v->len);
    }
  else
    {
      for (guint i = 0; i < n_locs; i++)
        put_uint (m, 1, locs[i]);
      for (guint i = 0; i < n_values; i++)
        put_uint (m, 2, (guint64) values[i]);
    }
  return m;
}

enum
{
  S_EMPTY, S_SAMPLES, S_COUNT, S_CPU, S_NS, S_MAIN, S_WORK, S_INL, S_FILE, S_ALLOC, S_BYTES,
  S_LIBC, S_TID, S_THREAD, S_WORKER, N_STRINGS
};
static const char *const strings[N_STRINGS] = {
  "", "samples", "count", "cpu", "nanoseconds", "main", "work", "inl", "prog.go",
  "alloc", "bytes", "/lib/libc.so", "tid", "thread", "worker",
};

typedef struct
{
  gboolean with_functions;
  gboolean packed;
  gint64   value_sign;
  guint64  default_sample_type;
  gboolean extra_sample_type;  /* [samples, cpu, alloc/bytes] */
  gboolean labels;
  const char *file;            /* of every function; NULL: prog.go */
} ProfileOptions;

/* main → work → (inl inlined into work) ; second stack main → work */
static GByteArray *
build_profile (const ProfileOptions *o)
{
  GByteArray *b = g_byte_array_new ();
  static const guint64 loc1_fns[] = { 3, 2 };  /* inl inlined into work */
  static const guint64 loc2_fns[] = { 1 };     /* main */
  static const guint64 stack1[] = { 1, 2 };
  static const guint64 stack2[] = { 2 };
  gint64 v1[3] = { 3, 30000000 * o->value_sign, 100 };
  gint64 v2[3] = { 1, 10000000, 200 };
  guint n_values = o->extra_sample_type ? 3 : 2;

  /* samples before the tables they refer to: field order is free */
  {
    GByteArray *s = sample (stack1, 2, v1, n_values, o->packed);
    if (o->labels)
      {
        GByteArray *l = g_byte_array_new ();
        put_uint (l, 1, S_TID);
        put_uint (l, 3, 42);
        put_msg (s, 3, l);
        l = g_byte_array_new ();
        put_uint (l, 1, S_THREAD);
        put_uint (l, 2, S_WORKER);
        put_msg (s, 3, l);
      }
    put_msg (b, 2, s);
  }
  put_msg (b, 2, sample (stack2, 1, v2, n_values, o->packed));
  put_msg (b, 1, value_type (S_SAMPLES, S_COUNT));
  put_msg (b, 1, value_type (S_CPU, S_NS));
  if (o->extra_sample_type)
    put_msg (b, 1, value_type (S_ALLOC, S_BYTES));
  for (guint i = 0; i < N_STRINGS; i++)
    put_str (b, i == S_FILE && o->file != NULL ? o->file : strings[i]);
  {
    GByteArray *m = g_byte_array_new ();
    put_uint (m, 1, 7);
    put_uint (m, 5, S_LIBC);
    put_msg (b, 3, m);
  }
  put_msg (b, 4, location (1, 7, 0x1234, o->with_functions ? loc1_fns : NULL,
                           o->with_functions ? 2 : 0));
  put_msg (b, 4, location (2, 7, 0x5678, o->with_functions ? loc2_fns : NULL,
                           o->with_functions ? 1 : 0));
  if (o->with_functions)
    {
      put_msg (b, 5, function (1, S_MAIN, S_FILE));
      put_msg (b, 5, function (2, S_WORK, S_FILE));
      put_msg (b, 5, function (3, S_INL, S_FILE));
    }
  put_msg (b, 11, value_type (S_CPU, S_NS));
  put_uint (b, 12, 10000000);
  if (o->default_sample_type)
    put_uint (b, 14, o->default_sample_type);
  put_uint (b, 10, 2000000000);
  return b;
}

static const ProfileOptions defaults = { TRUE, TRUE, 1, 0, FALSE, FALSE };

static void
test_synthetic (void)
{
  g_autoptr(GByteArray) b = build_profile (&defaults);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("synthetic.pb", b->data, b->len, &error);
  g_autoptr(GHashTable) stacks = NULL;
  FlameFrames *frames;
  gboolean saw_inlined = FALSE;

  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "pprof");
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_NANOSECONDS);
  g_assert_cmpfloat (flame_profile_get_interval_ms (profile), ==, 10.0);
  g_assert_cmpfloat (flame_profile_get_duration_ms (profile), ==, 2000.0);
  g_assert_cmpfloat (flame_profile_get_samples (profile, 0), ==, 4);
  g_assert_cmpfloat (flame_profile_get_total_weight (profile, 0), ==, 40000000);

  /* the last sample type (cpu), stacks root first, the inlined line
   * after the line it was inlined into */
  stacks = flame_test_stacks (profile, 0);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, 2);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "main;work;inl"), ==, 30000000);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "main"), ==, 10000000);

  frames = flame_profile_get_frames (profile);
  for (guint f = 0; f < flame_frames_count (frames); f++)
    {
      const FlameFrame *fr = flame_frames_get (frames, f);
      const char *name = flame_frames_get_name (frames, f);

      if (strcmp (name, "inl") == 0)
        {
          g_assert_true (fr->flags & FLAME_FRAME_INLINED);
          g_assert_cmpuint (fr->line, ==, 10);
          g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "prog.go");
          saw_inlined = TRUE;
        }
      else if (strcmp (name, "work") == 0)
        {
          g_assert_false (fr->flags & FLAME_FRAME_INLINED);
          g_assert_cmpuint (fr->line, ==, 11);
        }
    }
  g_assert_true (saw_inlined);
}

/* The same program profiled from two checkouts in different folders
 * matches function for function (docs/diff-semantics.md); with exact
 * paths nothing does. */
static void
test_checkouts (void)
{
  ProfileOptions ob = defaults, oc = defaults;
  g_autoptr(GByteArray) bb = NULL;
  g_autoptr(GByteArray) bc = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) base = NULL;
  g_autoptr(FlameProfile) cur = NULL;
  FlameDiffOptions opts;

  ob.file = "/builds/1234/proj/cmd/prog/prog.go";
  oc.file = "/tmp/pr-77/proj/cmd/prog/prog.go";
  bb = build_profile (&ob);
  bc = build_profile (&oc);
  base = load_bytes ("base.pb", bb->data, bb->len, &error);
  g_assert_no_error (error);
  cur = load_bytes ("cur.pb", bc->data, bc->len, &error);
  g_assert_no_error (error);

  flame_diff_options_init (&opts);
  for (guint exact = 0; exact < 2; exact++)
    {
      g_autoptr(FlameDiff) diff = NULL;

      opts.exact_paths = exact;
      diff = flame_diff_new (base, cur, &opts, NULL, &error);
      g_assert_no_error (error);
      /* main, work, inl */
      g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, exact ? 3 : 0);
    }
}

static void
test_unpacked_and_default_type (void)
{
  ProfileOptions o = defaults;
  g_autoptr(GByteArray) b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GHashTable) stacks = NULL;

  /* unpacked repeated fields; default_sample_type picks "samples" */
  o.packed = FALSE;
  o.default_sample_type = S_SAMPLES;
  b = build_profile (&o);
  profile = load_bytes ("unpacked.pb", b->data, b->len, &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_SAMPLES);
  g_assert_cmpfloat (flame_profile_get_interval_ms (profile), ==, 10.0);
  stacks = flame_test_stacks (profile, 0);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "main;work;inl"), ==, 3);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "main"), ==, 1);
  g_assert_cmpfloat (flame_profile_get_total_ms (profile, 0, 1), ==, 40);
}

static void
test_last_type_bytes (void)
{
  ProfileOptions o = defaults;
  g_autoptr(GByteArray) b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  o.extra_sample_type = TRUE;
  b = build_profile (&o);
  profile = load_bytes ("heap.pb", b->data, b->len, &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_BYTES);
  g_assert_cmpfloat (flame_profile_get_total_weight (profile, 0), ==, 300);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "sample-type"), ==, "alloc/bytes");
}

static void
test_no_functions (void)
{
  ProfileOptions o = defaults;
  g_autoptr(GByteArray) b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GHashTable) stacks = NULL;
  FlameFrames *frames;

  o.with_functions = FALSE;
  b = build_profile (&o);
  profile = load_bytes ("unsymbolized.pb", b->data, b->len, &error);
  g_assert_no_error (error);
  stacks = flame_test_stacks (profile, 0);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "0x5678;0x1234"), ==, 30000000);
  g_assert_cmpfloat (flame_test_stack_weight (stacks, "0x5678"), ==, 10000000);
  frames = flame_profile_get_frames (profile);
  for (guint f = 0; f < flame_frames_count (frames); f++)
    g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "/lib/libc.so");
}

static void
test_threads (void)
{
  ProfileOptions o = defaults;
  g_autoptr(GByteArray) b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  GPtrArray *threads;
  FlameThread *t;

  o.labels = TRUE;
  b = build_profile (&o);
  profile = load_bytes ("labels.pb", b->data, b->len, &error);
  g_assert_no_error (error);
  threads = flame_profile_get_threads (profile);
  g_assert_cmpuint (threads->len, ==, 1);
  t = g_ptr_array_index (threads, 0);
  g_assert_cmpstr (t->name, ==, "worker");
  g_assert_cmpint (t->tid, ==, 42);
  g_assert_cmpfloat (t->samples, ==, 3);
}

static void
test_negative (void)
{
  ProfileOptions o = defaults;
  g_autoptr(GByteArray) b = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  o.value_sign = -1;
  b = build_profile (&o);
  profile = load_bytes ("diff.pb", b->data, b->len, &error);
  g_assert_null (profile);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "diff.pb: byte "));
  g_assert_nonnull (strstr (error->message, "-diff_base"));
}

static void
expect_parse_error (GByteArray *b,
                    const char *reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_bytes ("bad.pb", b->data, b->len, &error);

  g_assert_null (profile);
  g_assert_nonnull (error);
  if (!g_str_has_prefix (error->message, "bad.pb: byte ") ||
      strstr (error->message, reason) == NULL)
    g_error ("unexpected message: %s (wanted “%s”)", error->message, reason);
}

static void
test_malformed (void)
{
  /* a string index past the table */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    put_msg (b, 5, function (9, 999, 0));
    put_msg (b, 4, location (9, 0, 1, (const guint64[]) { 9 }, 1));
    expect_parse_error (b, "string index 999 is out of range");
  }
  /* a location naming a function that is not there */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    put_msg (b, 4, location (9, 0, 1, (const guint64[]) { 77 }, 1));
    expect_parse_error (b, "function 77");
  }
  /* a sample naming a location that is not there */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    put_msg (b, 2, sample ((const guint64[]) { 55 }, 1, (const gint64[]) { 1, 1 }, 2, TRUE));
    expect_parse_error (b, "location 55");
  }
  /* a message where a number belongs */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    put_bytes (b, 12, "x", 1);
    expect_parse_error (b, "wire type");
  }
  /* invalid UTF-8 in the string table */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    put_str (b, "bad\xff\xfe");
    expect_parse_error (b, "UTF-8");
  }
  /* a huge declared length */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    static const guint8 huge[] = { 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f };
    g_byte_array_append (b, huge, sizeof huge);
    expect_parse_error (b, "past the end");
  }
  /* a location repeated a million times by tiny samples */
  {
    g_autoptr(GByteArray) b = build_profile (&defaults);
    guint64 fns[2000];
    g_autoptr(GByteArray) ids = g_byte_array_new ();

    for (guint i = 0; i < G_N_ELEMENTS (fns); i++)
      fns[i] = 1;
    put_msg (b, 4, location (99, 0, 1, fns, G_N_ELEMENTS (fns)));
    for (guint i = 0; i < 400; i++)
      flame_test_put_varint (ids, 99);
    for (guint s = 0; s < 100; s++)
      {
        GByteArray *m = g_byte_array_new ();
        put_bytes (m, 1, ids->data, ids->len);
        put_bytes (m, 2, "\x01\x01", 2);
        put_msg (b, 2, m);
      }
    expect_parse_error (b, "far more frames");
  }
}

/* Every prefix and every single-byte change of a valid profile loads or
 * fails cleanly (ASan/UBSan make "cleanly" mean something). */
static void
test_truncated_and_corrupt (void)
{
  g_autoptr(GByteArray) b = build_profile (&defaults);

  for (guint cut = 0; cut < b->len; cut++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile = load_bytes ("cut.pb", b->data, cut, &error);
      g_assert_true ((profile == NULL) != (error == NULL));
    }
  for (guint at = 0; at < b->len; at++)
    for (guint v = 0; v < 256; v += 51)
      {
        g_autoptr(GByteArray) c = g_byte_array_sized_new (b->len);
        g_autoptr(GError) error = NULL;
        g_autoptr(FlameProfile) profile = NULL;

        g_byte_array_append (c, b->data, b->len);
        c->data[at] = (guint8) v;
        profile = load_bytes ("flip.pb", c->data, c->len, &error);
        g_assert_true ((profile == NULL) != (error == NULL));
      }
}

/* speedscope's expected result for simple.prof
 * (src/import/__snapshots__/pprof.test.ts.snap) */
static void
test_speedscope_simple (void)
{
  static const struct { const char *stack; gdouble ms; } expected[] = {
    { "runtime.main;main.main;main.delta;main.beta", 140 },
    { "runtime.main;main.main;main.alpha", 260 },
    { "runtime.main;main.main;main.gamma", 270 },
    { "runtime.morestack;runtime.newstack;runtime.duffcopy", 110 },
    { "runtime.main;main.main;main.beta", 250 },
    { "runtime.main;main.main;main.delta", 220 },
    { "runtime.main;main.main;main.delta;main.alpha", 220 },
    { "runtime.timerproc;runtime.goroutineReady;runtime.goready;runtime.systemstack;"
      "runtime.goready.func1;runtime.ready;runtime.wakep;runtime.startm;runtime.notewakeup;"
      "runtime.semawakeup;runtime.mach_semrelease;runtime.mach_semaphore_signal", 10 },
    { "runtime.mstart;runtime.mstart1;runtime.sysmon;runtime.usleep", 20 },
  };
  g_autoptr(FlameProfile) profile = load_corpus ("speedscope/sample/profiles/pprof/simple.prof");
  g_autoptr(GHashTable) stacks = NULL;

  if (profile == NULL)
    return;
  stacks = flame_test_stacks (profile, 0);
  g_assert_cmpuint (g_hash_table_size (stacks), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpfloat_with_epsilon (flame_test_stack_weight (stacks, expected[i].stack) / 1e6,
                                    expected[i].ms, 1e-6);
  g_assert_cmpfloat (flame_profile_get_total_ms (profile, 0, 1), ==, 1500);
  g_assert_cmpfloat (flame_profile_get_interval_ms (profile), ==, 10);
}

/* ---- pprof's .string dumps ---- */

typedef struct
{
  gdouble     total;                /* of the last value column */
  gdouble     samples;              /* first value column */
  GHashTable *leaf_self;            /* leaf name → weight */
} Expected;

/* Parses `pprof -raw`-style dumps: "count value: loc loc ..." sample lines
 * after "Samples:", and "id: 0xaddr [name file:line:col] ..." lines after
 * "Locations". The leaf is named like Flamediff names it: by function
 * when symbolized, else by address. */
static void
parse_string_dump (const char *path,
                   Expected   *e)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) loc_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) sample_leaf = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) sample_value = g_array_new (FALSE, FALSE, sizeof (gdouble));
  enum { NONE, SAMPLES, LOCATIONS } section = NONE;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  e->total = e->samples = 0;
  e->leaf_self = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];

      if (g_str_has_prefix (l, "Samples:"))
        section = SAMPLES;
      else if (g_str_has_prefix (l, "Locations"))
        section = LOCATIONS;
      else if (g_str_has_prefix (l, "Mappings"))
        section = NONE;
      else if (section == SAMPLES && strchr (l, ':') != NULL)
        {
          g_auto(GStrv) parts = g_strsplit (l, ":", 2);
          g_auto(GStrv) values = g_strsplit_set (g_strstrip (parts[0]), " ", -1);
          g_auto(GStrv) locs = g_strsplit_set (g_strstrip (parts[1]), " ", -1);
          gdouble v = 0, count = g_ascii_strtod (values[0], NULL);

          for (guint k = 0; values[k] != NULL; k++)
            if (*values[k])
              v = g_ascii_strtod (values[k], NULL);
          e->total += v;
          e->samples += count;
          g_ptr_array_add (sample_leaf, g_strdup (locs[0]));
          g_array_append_val (sample_value, v);
        }
      else if (section == LOCATIONS && strchr (l, ':') != NULL)
        {
          g_auto(GStrv) parts = g_strsplit (l, ":", 2);
          g_auto(GStrv) words = g_strsplit_set (g_strstrip (parts[1]), " ", -1);
          const char *name = words[0];

          /* "0x0 com.example.f source.java:6:0 s=0" or "0x430b93 M=1" */
          if (words[1] != NULL && *words[1] && !g_str_has_prefix (words[1], "M=") &&
              !g_str_has_prefix (words[1], "s="))
            name = words[1];
          else
            {
              guint64 a = g_ascii_strtoull (words[0] + 2, NULL, 16);
              g_free (words[0]);
              words[0] = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", a);
              name = words[0];
            }
          g_hash_table_insert (loc_names, g_strdup (g_strstrip (parts[0])), g_strdup (name));
        }
    }
  for (guint s = 0; s < sample_leaf->len; s++)
    {
      const char *name = g_hash_table_lookup (loc_names, g_ptr_array_index (sample_leaf, s));
      gdouble *w;

      g_assert_nonnull (name);
      if (g_array_index (sample_value, gdouble, s) == 0)
        continue;
      w = g_hash_table_lookup (e->leaf_self, name);
      if (w == NULL)
        {
          w = g_new0 (gdouble, 1);
          g_hash_table_insert (e->leaf_self, g_strdup (name), w);
        }
      *w += g_array_index (sample_value, gdouble, s);
    }
}

static void
test_legacy (gconstpointer data)
{
  const char *name = data;
  g_autofree char *rel = g_strdup_printf ("pprof/profile/testdata/%s", name);
  g_autofree char *rel_string = g_strdup_printf ("pprof/profile/testdata/%s.string", name);
  g_autofree char *string_path = NULL;
  g_autoptr(FlameProfile) profile = load_corpus (rel);
  g_autoptr(GHashTable) self = NULL;
  Expected e;
  GHashTableIter it;
  gpointer k, v;
  guint n_checked = 0;

  if (profile == NULL || (string_path = flame_test_corpus_path (rel_string)) == NULL)
    return;
  parse_string_dump (string_path, &e);

  g_assert_cmpstr (flame_profile_get_format_name (profile), ==, "pprof-legacy-cpu");
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_NANOSECONDS);
  g_assert_cmpfloat (flame_profile_get_interval_ms (profile), ==, 10);
  g_assert_cmpfloat (flame_profile_get_total_weight (profile, 0), ==, e.total);
  g_assert_cmpfloat (flame_profile_get_samples (profile, 0), ==, e.samples);

  /* every leaf's self weight, which covers the top frames */
  self = flame_test_self_by_name (profile, 0);
  g_assert_cmpuint (g_hash_table_size (self), ==, g_hash_table_size (e.leaf_self));
  g_hash_table_iter_init (&it, e.leaf_self);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      gdouble *got = g_hash_table_lookup (self, k);
      if (got == NULL)
        g_error ("%s: leaf %s is missing", name, (const char *) k);
      g_assert_cmpfloat (*got, ==, *(gdouble *) v);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >, 0);
  g_hash_table_unref (e.leaf_self);
}

static void
test_corpus_proto (void)
{
  g_autoptr(FlameProfile) sample_cpu = load_corpus ("pprof/internal/report/testdata/sample.cpu");
  g_autoptr(FlameProfile) nst = NULL;
  g_autoptr(FlameProfile) legacy = NULL;
  g_autoptr(GHashTable) a = NULL;
  g_autoptr(GHashTable) b = NULL;
  g_autofree char *crash = NULL;
  GHashTableIter it;
  gpointer k, v;

  if (sample_cpu == NULL)
    return;
  /* a Go CPU profile: [samples/count, cpu/nanoseconds], 10 ms period */
  g_assert_cmpstr (flame_profile_get_format_name (sample_cpu), ==, "pprof");
  g_assert_cmpint (flame_profile_get_unit (sample_cpu), ==, FLAME_UNIT_NANOSECONDS);
  g_assert_cmpfloat (flame_profile_get_interval_ms (sample_cpu), ==, 10);
  g_assert_cmpfloat (flame_profile_get_samples (sample_cpu, 0), ==, 176);
  g_assert_cmpfloat (flame_profile_get_total_ms (sample_cpu, 0, 1), ==, 1760);

  /* the same cppbench run as the legacy file, converted to proto
   * with unnamed sample types: identical leaves and totals */
  nst = load_corpus ("pprof/internal/driver/testdata/cppbench.cpu_no_samples_type");
  legacy = load_corpus ("pprof/profile/testdata/cppbench.cpu");
  g_assert_cmpfloat (flame_profile_get_total_weight (nst, 0), ==,
                     flame_profile_get_total_weight (legacy, 0) / 1e6 * 1e6);
  g_assert_cmpfloat (flame_profile_get_total_ms (nst, 0, 1), ==, 7120);
  a = flame_test_stacks (nst, 0);
  b = flame_test_stacks (legacy, 0);
  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));
  g_hash_table_iter_init (&it, a);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_assert_cmpfloat (flame_test_stack_weight (b, k), ==, *(gdouble *) v);

  /* a fuzz regression of pprof's: loads or fails, never crashes */
  crash = flame_test_corpus_path ("pprof/internal/driver/testdata/go.nomappings.crash");
  if (crash != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = flame_load_file (crash, NULL, NULL, NULL, &error);
      g_assert_true ((p == NULL) != (error == NULL));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pprof/synthetic", test_synthetic);
  g_test_add_func ("/pprof/checkouts", test_checkouts);
  g_test_add_func ("/pprof/unpacked-default-type", test_unpacked_and_default_type);
  g_test_add_func ("/pprof/last-type-bytes", test_last_type_bytes);
  g_test_add_func ("/pprof/no-functions", test_no_functions);
  g_test_add_func ("/pprof/threads", test_threads);
  g_test_add_func ("/pprof/negative", test_negative);
  g_test_add_func ("/pprof/malformed", test_malformed);
  g_test_add_func ("/pprof/truncated-corrupt", test_truncated_and_corrupt);
  g_test_add_func ("/pprof/corpus/speedscope-simple", test_speedscope_simple);
  g_test_add_func ("/pprof/corpus/proto", test_corpus_proto);
  g_test_add_data_func ("/pprof/corpus/legacy/cppbench", "cppbench.cpu", test_legacy);
  g_test_add_data_func ("/pprof/corpus/legacy/go.crc32", "go.crc32.cpu", test_legacy);
  g_test_add_data_func ("/pprof/corpus/legacy/gobench", "gobench.cpu", test_legacy);
  g_test_add_data_func ("/pprof/corpus/legacy/java", "java.cpu", test_legacy);
  return g_test_run ();
}
