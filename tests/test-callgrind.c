/* test-callgrind.c: callgrind files valgrind wrote (tests/data/callgrind,
 * make-fixtures.sh) against what callgrind_annotate prints for them,
 * stored beside them and, when it is installed, run afresh.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "flame-callgrind.h"
#include "flame-diff.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-report.h"
#include "flame-test-utils.h"

typedef struct
{
  GHashTable *functions;  /* "file:function" -> guint64 * */
  guint64     program_total;
} Annotate;

static void
annotate_clear (Annotate *a)
{
  g_clear_pointer (&a->functions, g_hash_table_unref);
}

/* "1,234 (12.3%)", "0" or "." (no cost) at *p: the number, *p moved past
 * it and its percentage */
static guint64
take_cell (const char **p)
{
  const char *s = *p;
  guint64 v = 0;

  while (*s == ' ')
    s++;
  if (*s == '.')
    s++;
  else
    {
      g_assert_true (g_ascii_isdigit (*s));
      for (; g_ascii_isdigit (*s) || *s == ','; s++)
        if (*s != ',')
          v = v * 10 + (guint64) (*s - '0');
    }
  while (*s == ' ')
    s++;
  if (*s == '(')
    {
      s = strchr (s, ')');
      g_assert_nonnull (s);
      s++;
    }
  *p = s;
  return v;
}

/* callgrind_annotate's output: PROGRAM TOTALS and one row per function,
 * the figures of the @event'th event column */
static void
annotate_parse (Annotate   *a,
                const char *text,
                guint       event)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  gssize name_col = -1;

  a->functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  a->program_total = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *p = line;
      const char *hdr = strstr (line, "file:function");
      guint64 v = 0;

      if (strstr (line, "PROGRAM TOTALS") != NULL)
        {
          for (guint e = 0; e <= event; e++)
            v = take_cell (&p);
          a->program_total = v;
          continue;
        }
      if (hdr != NULL && line[0] != ' ' && g_ascii_isalpha (line[0]))
        {
          name_col = hdr - line;
          i++;  /* the dashes under it */
          continue;
        }
      if (name_col < 0)
        continue;
      if (line[0] == '-' || line[0] == '\0' || (gssize) strlen (line) <= name_col)
        break;  /* the end of the function table */
      {
        const char *name = line + name_col;
        const char *obj = g_str_has_suffix (name, "]") ? g_strrstr (name, " [") : NULL;
        g_autofree char *key = g_strndup (name, obj ? (gsize) (obj - name) : strlen (name));
        guint64 *value = g_new (guint64, 1);

        for (guint e = 0; e <= event; e++)
          v = take_cell (&p);
        *value = v;
        g_assert_false (g_hash_table_contains (a->functions, key));
        g_hash_table_insert (a->functions, g_steal_pointer (&key), value);
      }
    }
  g_assert_cmpint (name_col, >=, 0);
  g_assert_cmpuint (g_hash_table_size (a->functions), >, 10);
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "callgrind", name, NULL);
}

static FlameProfile *
load (const char *name,
      const char *event)
{
  g_autofree char *path = data_path (name);
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  g_autoptr(GError) error = NULL;
  FlameProfile *profile;

  options.sample_type = event;
  profile = flame_load_file_full (path, &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (profile);
  g_assert_cmpint (flame_profile_get_format (profile), ==, FLAME_FORMAT_CALLGRIND);
  return profile;
}

/* Every function callgrind_annotate lists has our figure, and every
 * function we have a figure for is listed with it. */
static void
check_against (FlameProfile   *profile,
               const Annotate *a,
               gboolean        inclusive)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  guint matched = 0;

  for (guint32 f = 0; f < flame_frames_count (frames); f++)
    {
      gdouble self, total, ours;
      g_autofree char *key = g_strdup_printf ("%s:%s", flame_frames_get_file (frames, f),
                                              flame_frames_get_name (frames, f));
      guint64 *theirs = g_hash_table_lookup (a->functions, key);

      g_assert_true (flame_profile_get_function_weights (profile, 0, f, &self, &total));
      ours = inclusive ? total : self;
      if (theirs == NULL)
        {
          if (ours != 0)
            g_error ("%s: ours %.0f, not in callgrind_annotate's list", key, ours);
          continue;
        }
      if (ours != (gdouble) *theirs)
        g_error ("%s: ours %.0f, callgrind_annotate %" G_GUINT64_FORMAT, key, ours, *theirs);
      matched++;
    }
  /* no function of theirs is missing from ours ("." rows are 0 anyway) */
  {
    GHashTableIter iter;
    gpointer key, value;
    guint nonzero = 0;

    g_hash_table_iter_init (&iter, a->functions);
    while (g_hash_table_iter_next (&iter, &key, &value))
      nonzero += *(guint64 *) value != 0;
    g_assert_cmpuint (matched, >=, nonzero);
  }
}

static void
check_file (const char *name,
            const char *event,
            guint       event_column)
{
  g_autoptr(FlameProfile) profile = load (name, event);
  g_autofree char *path = data_path (name);
  const char *kinds[] = { "self", "inclusive" };
  gdouble sum = 0;

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *txt_name = g_strdup_printf ("%.*s.%s.txt",
                                                   (int) (strlen (name) - strlen (".callgrind")),
                                                   name, kinds[k]);
      g_autofree char *txt_path = data_path (txt_name);
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;
      Annotate a = { 0 };

      g_assert_true (g_file_get_contents (txt_path, &text, NULL, &error));
      g_assert_no_error (error);
      annotate_parse (&a, text, event_column);
      check_against (profile, &a, k == 1);
      if (k == 0)
        {
          /* The flame tree holds the whole program, however it is shaped:
           * the sum of the functions' costs, which is PROGRAM TOTALS (the
           * summary: line) or, where callgrind's summary counted a few
           * instructions more than its functions (--cache-sim), the
           * totals: line. */
          const char *totals = flame_profile_get_metadata (profile, "totals");
          gdouble tree_total = flame_profile_get_total_weight (profile, 0);
          gdouble expected = (gdouble) a.program_total;

          g_assert_cmpstr (flame_profile_get_metadata (profile, "summary"), !=, NULL);
          g_assert_cmpfloat (g_ascii_strtod (flame_profile_get_metadata (profile, "summary"), NULL),
                             ==, expected);
          if (fabs (tree_total - expected) > 1e-6 * expected && totals != NULL)
            expected = g_ascii_strtod (totals, NULL);
          g_assert_cmpfloat_with_epsilon (tree_total, expected, 1e-6 * expected);
        }
      annotate_clear (&a);
    }

  /* and callgrind_annotate itself, when it is here: same file, same figures */
  {
    g_autofree char *tool = g_find_program_in_path ("callgrind_annotate");
    g_autofree char *abs = g_canonicalize_filename (path, NULL);

    if (tool == NULL)
      g_test_message ("callgrind_annotate is not installed: stored output only");
    else
      for (guint k = 0; k < 2; k++)
        {
          g_autofree char *inclusive = g_strdup_printf ("--inclusive=%s", k ? "yes" : "no");
          const char *argv[] = { tool, inclusive, "--threshold=100", abs, NULL };
          g_autofree char *out = NULL;
          g_autoptr(GError) error = NULL;
          int status = 0;
          Annotate a = { 0 };

          /* from /: it strips the working directory from some names */
          g_assert_true (g_spawn_sync ("/", (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
                                       NULL, NULL, &out, NULL, &status, &error));
          g_assert_no_error (error);
          g_assert_true (g_spawn_check_wait_status (status, NULL));
          annotate_parse (&a, out, event_column);
          check_against (profile, &a, k == 1);
          annotate_clear (&a);
        }
  }

  for (guint32 f = 0; f < flame_frames_count (flame_profile_get_frames (profile)); f++)
    {
      gdouble self, total;
      flame_profile_get_function_weights (profile, 0, f, &self, &total);
      sum += self;
    }
  g_assert_cmpfloat_with_epsilon (sum, flame_profile_get_total_weight (profile, 0), 1e-6 * sum);
}

static void
test_annotate_ir (void)
{
  check_file ("baseline.callgrind", NULL, 0);
  check_file ("current.callgrind", NULL, 0);
}

static void
test_annotate_cachesim (void)
{
  g_autoptr(FlameProfile) profile = load ("cachesim.callgrind", NULL);

  /* instr and line positions, nine events: Ir by default, any by name */
  g_assert_cmpstr (flame_profile_get_event (profile), ==, "Ir");
  check_file ("cachesim.callgrind", NULL, 0);
  check_file ("cachesim.callgrind", "Dr", 1);
  check_file ("cachesim.callgrind", "D1mr", 4);
}

static void
test_unit_and_metadata (void)
{
  g_autoptr(FlameProfile) profile = load ("baseline.callgrind", NULL);

  /* instructions are counted, not timed */
  g_assert_cmpint (flame_profile_get_unit (profile), ==, FLAME_UNIT_COUNT);
  g_assert_cmpint (flame_profile_get_quantity (profile), ==, FLAME_QUANTITY_COUNT);
  g_assert_cmpstr (flame_profile_get_sample_type (profile), ==, "Ir");
  g_assert_nonnull (flame_profile_get_metadata (profile, "flame-graph"));
  g_assert_cmpstr (flame_profile_get_metadata (profile, "summary"), ==, "292364");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "cmd"), ==, "./prog 1000");
}

static gdouble
stat_of (FlameReport *report,
         const char  *name,
         gboolean     total,
         gboolean     current)
{
  for (guint i = 0; i < flame_report_get_n_functions (report); i++)
    {
      const FlameFunctionStat *s = flame_report_get_function (report, i);
      if (strcmp (flame_report_get_name (report, s), name) == 0)
        return total ? (current ? s->total_c : s->total_b) : (current ? s->self_c : s->self_b);
    }
  g_error ("%s is not in the report", name);
  return 0;
}

/* The report's per-function figures are callgrind_annotate's, not sums
 * over the approximate tree: work is called from two places, main
 * recursively from nowhere, fib from itself. */
static void
test_report_exact (void)
{
  g_autoptr(FlameProfile) baseline = load ("baseline.callgrind", NULL);
  g_autoptr(FlameProfile) current = load ("current.callgrind", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameDiff) diff = NULL;
  FlameDiffOptions options;
  FlameReport *report;

  flame_diff_options_init (&options);
  options.normalize = FLAME_NORMALIZE_ABSOLUTE;
  diff = flame_diff_new (baseline, current, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_diff_get_quantity (diff), ==, FLAME_QUANTITY_COUNT);
  report = flame_report_new (diff, NULL);

  /* from baseline.self.txt / .inclusive.txt and current's */
  g_assert_cmpfloat (stat_of (report, "work", FALSE, FALSE), ==, 144048);
  g_assert_cmpfloat (stat_of (report, "work", TRUE, FALSE), ==, 144048);
  g_assert_cmpfloat (stat_of (report, "main", TRUE, FALSE), ==, 168399);
  g_assert_cmpfloat (stat_of (report, "render", TRUE, FALSE), ==, 96033);
  g_assert_cmpfloat (stat_of (report, "parse", TRUE, FALSE), ==, 68265);
  g_assert_cmpfloat (stat_of (report, "work", TRUE, TRUE), ==, 216048);
  flame_report_free (report);
}

/* compare and info speak of counts: instructions are not milliseconds */
static void
test_cli_counts (void)
{
  g_autofree char *b = data_path ("baseline.callgrind");
  g_autofree char *c = data_path ("current.callgrind");
  const char *compare[] = { "compare", "--normalize=none", b, c, NULL };
  const char *info[] = { "info", "--sample-type=Dr", NULL, NULL };
  g_autofree char *cachesim = data_path ("cachesim.callgrind");
  g_autofree char *out = flame_test_cli_output (compare);
  g_autofree char *out_info = NULL;

  g_assert_nonnull (strstr (out, "Metric:        self count"));
  g_assert_nonnull (strstr (out, "Total:         292364 → 364364"));
  g_assert_null (strstr (out, " ms"));
  info[2] = cachesim;
  out_info = flame_test_cli_output (info);
  g_assert_nonnull (strstr (out_info, "Event:     Dr\n"));
  g_assert_nonnull (strstr (out_info, "(32099 count)"));
}

static void
test_sniff (void)
{
  g_autofree char *path = data_path ("baseline.callgrind");
  g_autofree char *text = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_assert_cmpint (flame_sniff_format (text, len), ==, FLAME_FORMAT_CALLGRIND);
  /* hand-written: no comment line, just the keys */
  g_assert_cmpint (flame_sniff_format ("version: 1\nevents: Ir\nfn=a\n1 2\n", 32), ==,
                   FLAME_FORMAT_CALLGRIND);
  /* folded stacks are not callgrind */
  g_assert_cmpint (flame_sniff_format ("a;b 1\n", 6), !=, FLAME_FORMAT_CALLGRIND);
}

static FlameProfile *
load_text (const char  *text,
           GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  return flame_load_bytes ("t.callgrind", bytes, NULL, NULL, NULL, error);
}

/* Written by hand after the format's documentation: compressed names,
 * subposition compression, a call with its inclusive cost, recursion. */
static void
test_hand_written (void)
{
  static const char text[] =
    "# callgrind format\n"
    "version: 1\n"
    "positions: line\n"
    "events: Ir Dr\n"
    "fl=(1) a.c\n"
    "fn=(1) main\n"
    "10 5 1\n"
    "+2 3\n"
    "cfn=(2) f\n"
    "calls=2 20\n"
    "* 100 7\n"
    "fn=(2)\n"
    "20 60\n"
    "cfn=(2)\n"
    "calls=1 20\n"
    "-1 30\n"
    "fn=(3) (below main)\n"
    "0 1\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = load_text (text, &error);
  FlameFrames *frames;
  gdouble self, total;
  guint found = 0;

  g_assert_no_error (error);
  frames = flame_profile_get_frames (profile);
  for (guint32 f = 0; f < flame_frames_count (frames); f++)
    {
      const char *name = flame_frames_get_name (frames, f);

      flame_profile_get_function_weights (profile, 0, f, &self, &total);
      g_assert_cmpstr (flame_frames_get_file (frames, f), ==, "a.c");
      if (strcmp (name, "main") == 0)
        {
          g_assert_cmpfloat (self, ==, 8);
          g_assert_cmpfloat (total, ==, 108);
          found++;
        }
      else if (strcmp (name, "f") == 0)
        {
          /* as callgrind_annotate: the sum of all calls, recursive too */
          g_assert_cmpfloat (self, ==, 60);
          g_assert_cmpfloat (total, ==, 130);
          found++;
        }
      else if (strcmp (name, "(below main)") == 0)
        {
          g_assert_cmpfloat (self, ==, 1);
          found++;
        }
    }
  g_assert_cmpuint (found, ==, 3);
  /* the tree holds every cost once: 8 + 60 + 1 */
  g_assert_cmpfloat_with_epsilon (flame_profile_get_total_weight (profile, 0), 69, 1e-9);
}

static void
test_errors (void)
{
  static const struct { const char *text; const char *message;
  } cases[] = {
    { "# callgrind format\nevents: Ir\nfn=(4)\n",
      "t.callgrind:3: name (4) is used before it is defined" },
    { "# callgrind format\nevents: Ir\n1 2\n", "t.callgrind:3: a cost line before any fn= line" },
    { "# callgrind format\nevents: Ir\nfn=a\n1 2 3\n",
      "t.callgrind:4: more costs than the 1 events of the events: line" },
    { "# callgrind format\nevents: Ir\nfn=a\n1 x\n", "t.callgrind:4: “x” is not a cost" },
    { "# callgrind format\nevents: Ir\nfn=a\ncalls=1 2\n",
      "t.callgrind:4: a calls= line before any cfn= line" },
    { "# callgrind format\nevents: Ir\nfn=a\nwhat\n",
      "t.callgrind:4: not a line of the callgrind format" },
    { "# callgrind format\nversion: 2\nevents: Ir\n",
      "t.callgrind:2: callgrind format version 2 (Flamediff reads 1)" },
    { "# callgrind format\nevents: Ir\nfn=a\n1 0\n", "t.callgrind: no Ir cost in the file" },
    { "# callgrind format\nevents: Ir\nfn=a\n1 99999999999999999999\n",
      "t.callgrind:4: a cost beyond 64 bits" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) profile = load_text (cases[i].text, &error);

      g_assert_null (profile);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  /* an event the file does not have names those it has */
  {
    g_autofree char *path = data_path ("cachesim.callgrind");
    FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) profile = NULL;

    options.sample_type = "cycles";
    profile = flame_load_file_full (path, &options, NULL, NULL, NULL, &error);
    g_assert_null (profile);
    g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
    g_assert_nonnull (
      strstr (error->message,
              "no event “cycles” (the file has: Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw)"));
  }
}

/* Deep call graphs stay within the tree's limits: a chain of 5000
 * functions from f0, the last calling f1 again (a cycle). */
static void
test_bounded (void)
{
  GString *text = g_string_new ("# callgrind format\nevents: Ir\nfl=x.c\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (text, "fn=f%u\n1 1\ncfn=f%u\ncalls=1 1\n1 %u\n",
                            i, i + 1 < 5000 ? i + 1 : 1, 5000 - i);
  profile = load_text (text->str, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (flame_profile_get_total_weight (profile, 0), 5000, 1e-6);
  g_assert_cmpuint (flame_profile_get_tree (profile)->n_nodes, <=, 5000 + 1);
  g_string_free (text, TRUE);
}

/* loading checks for cancellation (the app loads in a worker thread) */
static void
test_cancel (void)
{
  g_autofree char *path = data_path ("baseline.callgrind");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  g_cancellable_cancel (cancellable);
  profile = flame_load_file (path, cancellable, NULL, NULL, &error);
  g_assert_null (profile);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/callgrind/annotate-ir", test_annotate_ir);
  g_test_add_func ("/callgrind/annotate-cachesim", test_annotate_cachesim);
  g_test_add_func ("/callgrind/unit-and-metadata", test_unit_and_metadata);
  g_test_add_func ("/callgrind/report-exact", test_report_exact);
  g_test_add_func ("/callgrind/sniff", test_sniff);
  g_test_add_func ("/callgrind/hand-written", test_hand_written);
  g_test_add_func ("/callgrind/errors", test_errors);
  g_test_add_func ("/callgrind/bounded", test_bounded);
  g_test_add_func ("/callgrind/cli-counts", test_cli_counts);
  g_test_add_func ("/callgrind/cancel", test_cancel);
  return g_test_run ();
}
