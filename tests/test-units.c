/* test-units.c: what a profile measures (time, bytes, counts) carried from
 * the loaders through the diff to every output, and the refusal to compare
 * different things. Real Go profiles from tests/data/go (README.md there).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "flame-diff.h"
#include "flame-error.h"
#include "flame-loader.h"
#include "flame-report.h"
#include "flame-tooltip.h"
#include "flame-test-locale.h"
#include "flame-test-utils.h"

static char *
go_file (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "go", name, NULL);
}

static JsonObject *
parse_object (JsonParser *parser,
              const char *text)
{
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static FlameProfile *
load (const char *path,
      const char *sample_type)
{
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;
  g_autoptr(GError) error = NULL;
  FlameProfile *p;

  options.sample_type = sample_type;
  p = flame_load_file_full (path, &options, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return p;
}

/* pprof's default is the last sample type (inuse_space); every other one
 * can be chosen, with the totals `go tool pprof` prints */
static void
test_pprof_sample_types (void)
{
  static const struct
  {
    const char *type;
    FlameUnit unit;
    FlameQuantity q;
    gdouble total;
  } cases[] = {
    { NULL, FLAME_UNIT_BYTES, FLAME_QUANTITY_BYTES, 78008844 },
    { "inuse_space", FLAME_UNIT_BYTES, FLAME_QUANTITY_BYTES, 78008844 },
    { "alloc_space/bytes", FLAME_UNIT_BYTES, FLAME_QUANTITY_BYTES, 82383495 },
    { "alloc_objects", FLAME_UNIT_COUNT, FLAME_QUANTITY_COUNT, 20305 },
    { "inuse_objects", FLAME_UNIT_COUNT, FLAME_QUANTITY_COUNT, 20186 },
  };
  g_autofree char *heap = go_file ("go-heap.pb.gz");
  g_autofree char *cpu = go_file ("go-cpu.pb.gz");
  g_autoptr(FlameProfile) c = load (cpu, NULL);
  g_autoptr(GError) error = NULL;
  FlameLoadOptions options = FLAME_LOAD_OPTIONS_DEFAULT;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FlameProfile) p = load (heap, cases[i].type);

      g_assert_cmpint (flame_profile_get_unit (p), ==, cases[i].unit);
      g_assert_cmpint (flame_profile_get_quantity (p), ==, cases[i].q);
      g_assert_cmpfloat (flame_profile_get_total_ms (p, 0, 1), ==, cases[i].total);
      g_assert_cmpfloat (flame_profile_get_effective_interval_ms (p, 0, 1, NULL), ==, 0);
    }

  g_assert_cmpint (flame_profile_get_quantity (c), ==, FLAME_QUANTITY_TIME);
  g_assert_cmpstr (flame_profile_get_sample_type (c), ==, "cpu/nanoseconds");
  g_assert_cmpfloat (flame_profile_get_total_ms (c, 0, 1), ==, 210);

  options.sample_type = "alloc_space/count";
  g_assert_null (flame_load_file_full (heap, &options, NULL, NULL, NULL, &error));
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "alloc_space/bytes, inuse_objects/count"));
}

/* bytes against time, one sample type against another, cycles against
 * instructions: refused, and the message says which two things */
static void
test_refuse_different (void)
{
  g_autofree char *heap = go_file ("go-heap.pb.gz");
  g_autofree char *cpu = go_file ("go-cpu.pb.gz");
  g_autoptr(FlameProfile) inuse = load (heap, NULL);
  g_autoptr(FlameProfile) alloc = load (heap, "alloc_space");
  g_autoptr(FlameProfile) time = load (cpu, NULL);
  g_autoptr(FlameProfile) again = load (heap, NULL);
  g_autoptr(FlameDiff) same = NULL;
  const char *const stacks[] = { "main;work", NULL };
  g_autoptr(FlameProfile) cycles = flame_test_profile (stacks);
  g_autoptr(FlameProfile) instructions = flame_test_profile (stacks);
  g_autoptr(FlameProfile) cycles_u = flame_test_profile (stacks);
  g_autoptr(FlameDiff) modifiers = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_null (flame_diff_new (time, inuse, NULL, NULL, &error));
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "different units"));
  g_assert_nonnull (strstr (error->message, "measures time (sample type cpu/nanoseconds)"));
  g_assert_nonnull (strstr (error->message, "measures memory (sample type inuse_space/bytes)"));
  g_clear_error (&error);

  g_assert_null (flame_diff_new (alloc, inuse, NULL, NULL, &error));
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "different sample types"));
  g_assert_nonnull (strstr (error->message, "alloc_space/bytes"));
  g_clear_error (&error);

  flame_profile_set_event (cycles, "cycles");
  flame_profile_set_event (instructions, "instructions");
  flame_profile_set_event (cycles_u, "cycles:u");
  g_assert_null (flame_diff_new (cycles, instructions, NULL, NULL, &error));
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "different events"));
  g_assert_nonnull (strstr (error->message, "event instructions"));
  g_clear_error (&error);

  /* the same event with other perf modifiers, and the same sample type */
  modifiers = flame_diff_new (cycles, cycles_u, NULL, NULL, &error);
  g_assert_no_error (error);
  same = flame_diff_new (inuse, again, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (flame_diff_get_quantity (same), ==, FLAME_QUANTITY_BYTES);
  g_assert_cmpfloat (flame_diff_get_total_ms (same, FLAME_DIFF_CURRENT), ==, 78008844);
}

static void
test_cli_info_units (void)
{
  g_autofree char *heap = go_file ("go-heap.pb.gz");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(FlameTestRun) t = { 0 };
  g_auto(FlameTestRun) j = { 0 };
  g_auto(FlameTestRun) o = { 0 };
  g_auto(FlameTestRun) bad = { 0 };
  JsonObject *root;

  flame_test_run_cli_va (&t, "info", heap, NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_assert_nonnull (strstr (t.out, "Total:   74.40 MiB (78008844 bytes)\n"));
  g_assert_nonnull (strstr (t.out, "Unit:      bytes (memory)\n"));
  g_assert_nonnull (strstr (t.out, "Sample type: inuse_space/bytes\n"));
  g_assert_null (strstr (t.out, " ms"));

  flame_test_run_cli_va (&j, "info", "--json", "--sample-type", "alloc_objects", heap, NULL);
  g_assert_cmpint (j.status, ==, 0);
  root = parse_object (parser, j.out);
  g_assert_cmpstr (json_object_get_string_member (root, "unit"), ==, "count");
  g_assert_cmpstr (json_object_get_string_member (root, "sample_type"), ==, "alloc_objects/count");
  g_assert_cmpfloat (json_object_get_double_member (root, "total"), ==, 20305);
  g_assert_false (json_object_has_member (root, "total_ms"));

  flame_test_run_cli_va (&o, "info", "--json", "--sample-type", "alloc_space", heap, NULL);
  g_assert_cmpint (o.status, ==, 0);
  root = parse_object (parser, o.out);
  g_assert_cmpfloat (json_object_get_double_member (root, "total"), ==, 82383495);

  flame_test_run_cli_va (&bad, "info", "--sample-type", "cpu", heap, NULL);
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, "no sample type “cpu”"));
}

static void
test_cli_compare_refuses (void)
{
  g_autofree char *heap = go_file ("go-heap.pb.gz");
  g_autofree char *cpu = go_file ("go-cpu.pb.gz");
  g_auto(FlameTestRun) r = { 0 };

  flame_test_run_cli_va (&r, "compare", cpu, heap, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "cannot compare profiles of different units"));
  g_assert_nonnull (strstr (r.err, "measures time"));
  g_assert_nonnull (strstr (r.err, "measures memory"));
}

/* A file whose weights are time but that names no interval (speedscope
 * "seconds", as py-spy writes them): info and compare derive the same
 * interval, the mean weight of a sample */
static void
test_interval_agrees (void)
{
  g_autofree char *path = flame_test_corpus_path (
    "speedscope/sample/profiles/speedscope/0.1.2/simple-sampled.speedscope.json");
  g_autoptr(JsonParser) pi = json_parser_new ();
  g_autoptr(JsonParser) pc = json_parser_new ();
  g_auto(FlameTestRun) i = { 0 };
  g_auto(FlameTestRun) t = { 0 };
  g_auto(FlameTestRun) c = { 0 };
  JsonObject *info, *cmp;

  if (path == NULL)
    return;
  flame_test_run_cli_va (&i, "info", "--json", path, NULL);
  flame_test_run_cli_va (&t, "info", path, NULL);
  flame_test_run_cli_va (&c, "compare", "--format", "json", path, path, NULL);
  g_assert_cmpint (i.status, ==, 0);
  g_assert_cmpint (c.status, ==, 0);
  info = parse_object (pi, i.out);
  cmp = json_object_get_object_member (parse_object (pc, c.out), "baseline");
  /* 14 s in 5 samples */
  g_assert_cmpfloat (json_object_get_double_member (info, "interval_ms"), ==, 2800);
  g_assert_cmpfloat (json_object_get_double_member (cmp, "interval_ms"), ==, 2800);
  g_assert_false (json_object_get_boolean_member (cmp, "interval_assumed"));
  g_assert_nonnull (strstr (t.out, "Interval:  2800 ms\n"));
}

/* Two heap profiles of the same program: every output speaks bytes */
static void
test_report_bytes (void)
{
  g_autofree char *a = go_file ("go-heap.pb.gz");
  g_autofree char *b = go_file ("go-heap-more.pb.gz");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(FlameTestRun) t = { 0 };
  g_auto(FlameTestRun) j = { 0 };
  g_auto(FlameTestRun) m = { 0 };
  JsonObject *root, *fn = NULL;
  JsonArray *functions;

  flame_test_run_cli_va (&t, "compare", "--normalize", "none", a, b, NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_assert_nonnull (
    strstr (t.out, "  Total:         74.40 MiB → 93.65 MiB (+19.26 MiB, +25.9%)\n"));
  g_assert_nonnull (strstr (t.out, "sample type inuse_space/bytes"));
  g_assert_nonnull (strstr (t.out, "Metric:        self memory; thresholds ±5% and 0 B"));
  g_assert_nonnull (strstr (t.out, "main.allocSmall"));
  g_assert_nonnull (strstr (t.out, "10.38 MiB 30.63 MiB +20.25 MiB +195.1%"));
  g_assert_null (strstr (t.out, " ms"));
  /* the memory summary: no peak in heap profiles, the top sites with
   * their file:line, the current run's biggest first */
  g_assert_nonnull (strstr (t.out, "\nPeak memory: not in these profiles"));
  g_assert_nonnull (strstr (t.out, "Top allocation sites (self, current run):\n"
                                   "      64 MiB      63 MiB      -1 MiB  main.allocBig "
                                   "(/tmp/goheap/main.go:15)\n"
                                   "    10.4 MiB    30.6 MiB   +20.3 MiB  main.allocSmall "
                                   "(/tmp/goheap/main.go:21)\n"));

  flame_test_run_cli_va (&m, "compare", "--normalize", "none", "--format", "markdown", a, b, NULL);
  g_assert_nonnull (strstr (m.out, "**Total:** 74.40 MiB → 93.65 MiB"));
  g_assert_nonnull (strstr (m.out, "| Function | File | Baseline | Current | Δ | Δ % |"));
  g_assert_null (strstr (m.out, " ms"));
  g_assert_nonnull (strstr (m.out, "| `main.allocSmall (/tmp/goheap/main.go:21)` | 10.4 MiB | "
                                   "30.6 MiB | +20.3 MiB |\n"));

  flame_test_run_cli_va (&j, "compare", "--normalize", "none", "--format", "json", a, b, NULL);
  g_assert_cmpint (j.status, ==, 0);
  root = parse_object (parser, j.out);
  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (root, "unit"), ==, "bytes");
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root,
                                                                                   "baseline"),
                                                    "total"),
                     ==, 78008844);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root, "current"),
                                                    "total"),
                     ==, 98201363);
  g_assert_null (strstr (j.out, "_ms\""));
  functions = json_object_get_array_member (root, "functions");
  for (guint i = 0; i < json_array_get_length (functions); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (functions, i),
                                                  "name"),
                   "main.allocSmall") == 0)
      fn = json_array_get_object_element (functions, i);
  g_assert_nonnull (fn);
  /* as go tool pprof -sample_index=inuse_space -top prints them */
  g_assert_cmpfloat (json_object_get_double_member (fn, "baseline_self"), ==, 10886199);
  g_assert_cmpfloat (json_object_get_double_member (fn, "current_self"), ==, 32122987);
  g_assert_cmpstr (json_object_get_string_member (fn, "status"), ==, "regression");
  {
    JsonObject *memory = json_object_get_object_member (root, "memory");
    JsonObject *site;

    g_assert_nonnull (memory);
    g_assert_cmpstr (json_object_get_string_member (memory, "unit"), ==, "bytes");
    /* no totals, no peak: heap profiles do not have them */
    g_assert_false (json_object_has_member (memory, "peak_delta_bytes"));
    site = json_array_get_object_element (json_object_get_array_member (memory, "top_sites"), 1);
    g_assert_cmpstr (json_object_get_string_member (site, "name"), ==, "main.allocSmall");
    g_assert_cmpstr (json_object_get_string_member (site, "file"), ==, "/tmp/goheap/main.go");
    g_assert_cmpint (json_object_get_int_member (site, "line"), ==, 21);
    g_assert_cmpfloat (json_object_get_double_member (site, "current"), ==, 32122987);
  }
}

static char *
write_folded (const char *dir,
              const char *name,
              const char *text)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

/* A new function costing 125 ms, 6 % of the run, fails the gate at 10 %
 * and 50 ms; --ignore-new and a higher --min-abs-ms let it pass */
static void
test_gate_new_function (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-gate-XXXXXX", &error);
  g_autofree char *base = write_folded (dir, "base.folded", "main;work 1875\n");
  g_autofree char *cur = write_folded (dir, "cur.folded", "main;work 1875\nmain;fresh 125\n");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(FlameTestRun) r = { 0 };
  g_auto(FlameTestRun) i = { 0 };
  g_auto(FlameTestRun) h = { 0 };
  g_auto(FlameTestRun) p = { 0 };
  g_auto(FlameTestRun) j = { 0 };
  g_auto(FlameTestRun) help = { 0 };
  JsonObject *root;

  flame_test_run_cli_va (&r, "compare", "--fail-on-regression", "--threshold-pct", "10",
                         "--min-abs-ms", "50", "--normalize", "none", base, cur, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "1 function beyond the thresholds (0 regressed, 1 new)"));
  g_assert_nonnull (strstr (
    r.out,
    "Gate:          1 function fails --fail-on-regression (0 regressed, 1 new beyond the thresholds)"));

  /* also under total-scaling, where work looks 6 % faster */
  flame_test_run_cli_va (&p, "compare", "--fail-on-regression", "--threshold-pct", "10",
                         "--min-abs-ms", "50", "--normalize", "total", base, cur, NULL);
  g_assert_cmpint (p.status, ==, 2);

  flame_test_run_cli_va (&i, "compare", "--fail-on-regression", "--threshold-pct", "10",
                         "--min-abs-ms", "50", "--ignore-new", base, cur, NULL);
  g_assert_cmpint (i.status, ==, 0);
  g_assert_nonnull (strstr (i.out, "; new functions ignored"));

  flame_test_run_cli_va (&h, "compare", "--fail-on-regression", "--threshold-pct", "10",
                         "--min-abs-ms", "200", base, cur, NULL);
  g_assert_cmpint (h.status, ==, 0);

  flame_test_run_cli_va (&j, "compare", "--format", "json", "--threshold-pct", "10", "--min-abs-ms",
                         "50", "--ignore-new", base, cur, NULL);
  root = parse_object (parser, j.out);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (root, "thresholds"),
                                                 "ignore_new"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "summary"),
                                               "gate_failures"),
                   ==, 0);

  flame_test_run_cli_va (&help, "compare", "--help", NULL);
  g_assert_nonnull (strstr (help.out, "--ignore-new"));
  g_assert_nonnull (strstr (help.out, "or a new function is beyond them"));

  g_unlink (base);
  g_unlink (cur);
  g_rmdir (dir);
}

/* New hotspots rank by total: a new caller whose time is all in its
 * callees comes first with its total, not last with "0.00" */
static void
test_new_by_total (void)
{
  const char *const base_stacks[] = { "main;old", NULL };
  const char *const cur_stacks[] = {
    "main;old", "main;wrapper;leaf", "main;wrapper;leaf", "main;wrapper;leaf", "main;small", NULL
  };
  g_autoptr(FlameProfile) base = flame_test_profile (base_stacks);
  g_autoptr(FlameProfile) cur = flame_test_profile (cur_stacks);
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameReport) report = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  FlameDiffOptions dopts;
  const char *section, *wrapper, *leaf, *small;

  flame_diff_options_init (&dopts);
  dopts.normalize = FLAME_NORMALIZE_ABSOLUTE;
  diff = flame_diff_new (base, cur, &dopts, NULL, &error);
  g_assert_no_error (error);
  report = flame_report_new (diff, NULL);
  flame_report_write_text (report, out);
  section = strstr (out->str, "New hotspots (by total time)\n");
  g_assert_nonnull (section);
  wrapper = strstr (section, "wrapper");
  leaf = strstr (section, "leaf");
  small = strstr (section, "small");
  g_assert_nonnull (wrapper);
  g_assert_nonnull (small);
  g_assert_true (wrapper < small && leaf < small);
  g_assert_null (strstr (section, "0.00 ms"));
  /* wrapper's row shows its 3 ms total, not its 0 self */
  g_assert_true (
    g_regex_match_simple ("wrapper +— +0\\.00 +3\\.00 +\\+3\\.00 +\\+100\\.0%", section, 0, 0));
  g_assert_nonnull (strstr (out->str, "Removed hotspots (by total time)"));
}

static JsonObject *
info_json (JsonParser *parser,
           const char *path)
{
  g_auto(FlameTestRun) r = { 0 };
  const char *args[] = { "info", "--json", path, NULL };
  JsonObject *o;

  flame_test_run_cli (&r, args);
  g_assert_cmpint (r.status, ==, 0);
  o = parse_object (parser, r.out);
  return o;
}

/* `convert` to folded reads back to the same unit, totals, samples and
 * interval: real pprof (CPU, heap), speedscope with time weights */
static void
test_convert_roundtrip (void)
{
  g_autofree char *speedscope = flame_test_corpus_path (
    "speedscope/sample/profiles/speedscope/0.1.2/simple-sampled.speedscope.json");
  g_autofree char *sample_cpu = flame_test_corpus_path (
    "pprof/internal/report/testdata/sample.cpu");
  g_autofree char *heap = go_file ("go-heap.pb.gz");
  g_autofree char *cpu = go_file ("go-cpu.pb.gz");
  const char *files[] = { heap, cpu, speedscope, sample_cpu };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-units-XXXXXX", &error);
  g_autofree char *out = g_build_filename (dir, "out.folded", NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(JsonParser) pa = json_parser_new ();
      g_autoptr(JsonParser) pb = json_parser_new ();
      g_auto(FlameTestRun) r = { 0 };
      const char *args[] = { "convert", "-o", out, files[i], NULL };
      JsonObject *a, *b;

      if (files[i] == NULL)
        continue;  /* corpus absent: skipped visibly above */
      flame_test_run_cli (&r, args);
      g_assert_cmpint (r.status, ==, 0);
      a = info_json (pa, files[i]);
      b = info_json (pb, out);
      g_assert_cmpstr (json_object_get_string_member (b, "format"), ==, "folded");
      g_assert_cmpstr (json_object_get_string_member (a, "unit"), ==,
                       json_object_get_string_member (b, "unit"));
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (a, "total"),
                                      json_object_get_double_member (b, "total"),
                                      1e-9 * json_object_get_double_member (a, "total"));
      g_assert_cmpfloat (json_object_get_double_member (a, "samples"), ==,
                         json_object_get_double_member (b, "samples"));
      if (json_object_get_null_member (a, "interval_ms"))
        g_assert_true (json_object_get_null_member (b, "interval_ms"));
      else
        g_assert_cmpfloat_with_epsilon (json_object_get_double_member (a, "interval_ms"),
                                        json_object_get_double_member (b, "interval_ms"), 1e-9);
      if (json_object_has_member (a, "sample_type"))
        g_assert_cmpstr (json_object_get_string_member (a, "sample_type"), ==,
                         json_object_get_string_member (b, "sample_type"));
    }
  g_unlink (out);
  g_rmdir (dir);
}

/* compare --format folded: the 3-column file compares to the same totals */
static void
test_compare_folded_roundtrip (void)
{
  g_autofree char *a = go_file ("go-heap.pb.gz");
  g_autofree char *b = go_file ("go-heap-more.pb.gz");
  g_autofree char *cpu = go_file ("go-cpu.pb.gz");
  g_autofree char *speedscope = flame_test_corpus_path (
    "speedscope/sample/profiles/speedscope/0.1.2/simple-sampled.speedscope.json");
  const char *pairs[][2] = { { a, b }, { cpu, cpu }, { speedscope, speedscope } };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-units-XXXXXX", &error);
  g_autofree char *out = g_build_filename (dir, "pair.folded", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autoptr(JsonParser) p1 = json_parser_new ();
      g_autoptr(JsonParser) p2 = json_parser_new ();
      g_auto(FlameTestRun) f = { 0 };
      g_auto(FlameTestRun) j1 = { 0 };
      g_auto(FlameTestRun) j2 = { 0 };
      JsonObject *r1, *r2;

      if (pairs[i][0] == NULL)
        continue;
      flame_test_run_cli_va (&f, "compare", "--normalize", "none", "--format", "folded", "-o", out,
                             pairs[i][0], pairs[i][1], NULL);
      g_assert_cmpint (f.status, ==, 0);
      flame_test_run_cli_va (&j1, "compare", "--normalize", "none", "--format", "json", pairs[i][0],
                             pairs[i][1], NULL);
      flame_test_run_cli_va (&j2, "compare", "--normalize", "none", "--format", "json", out, NULL);
      g_assert_cmpint (j2.status, ==, 0);
      r1 = parse_object (p1, j1.out);
      r2 = parse_object (p2, j2.out);
      g_assert_cmpstr (json_object_get_string_member (r1, "unit"), ==,
                       json_object_get_string_member (r2, "unit"));
      for (guint side = 0; side < 2; side++)
        {
          const char *key = side ? "current" : "baseline";
          JsonObject *s1 = json_object_get_object_member (r1, key);
          JsonObject *s2 = json_object_get_object_member (r2, key);

          g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s1, "total"),
                                          json_object_get_double_member (s2, "total"),
                                          1e-9 * json_object_get_double_member (s1, "total"));
          g_assert_cmpfloat (json_object_get_double_member (s1, "samples"), ==,
                             json_object_get_double_member (s2, "samples"));
        }
    }
  g_unlink (out);
  g_rmdir (dir);
}

/* Samples without a stack (pprof samples with no location) are part of
 * the total: convert keeps them as "[no stack]" */
static void
test_convert_empty_stack (void)
{
  const char *const stacks[] = { "main;work", NULL };
  g_autoptr(FlameProfile) p = flame_test_profile (stacks);
  g_autoptr(FlameProfile) q = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) e = flame_profile_new (FLAME_FORMAT_PPROF, 1);
  guint32 ids[2];

  /* a profile as the pprof loader builds it: 3 ms of stacks, 2 without */
  flame_profile_set_unit (e, FLAME_UNIT_NANOSECONDS);
  ids[0] = flame_profile_intern_frame (e, "main", 4, NULL, 0, 0, 0);
  ids[1] = flame_profile_intern_frame (e, "work", 4, NULL, 0, 0, 0);
  flame_profile_add_stack (e, 0, ids, 2, 3e6);
  flame_profile_add_stack (e, 0, NULL, 0, 2e6);
  flame_profile_add_samples (e, 0, 5);
  flame_profile_finish (e);

  flame_profile_write_folded (e, out);
  g_assert_nonnull (strstr (out->str, "\n[no stack] 2\n"));
  bytes = g_bytes_new (out->str, out->len);
  q = flame_load_bytes ("e.folded", bytes, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flame_profile_get_total_ms (q, 0, 1), ==, 5);
  g_assert_cmpfloat (flame_profile_get_total_ms (e, 0, 1), ==, 5);
  g_assert_cmpfloat (flame_profile_get_samples (q, 0), ==, 5);
  (void) p;
}

/* Tooltips (app and SVG <title>) of a heap comparison speak bytes */
static void
test_tooltip_bytes (void)
{
  g_autofree char *a = go_file ("go-heap.pb.gz");
  g_autofree char *b = go_file ("go-heap-more.pb.gz");
  g_autoptr(FlameProfile) pa = load (a, NULL);
  g_autoptr(FlameProfile) pb = load (b, NULL);
  g_autoptr(FlameDiff) diff = NULL;
  g_autoptr(FlameLayoutSource) source = NULL;
  g_autoptr(FlameLayoutSource) single = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *root = NULL;
  g_autofree char *one = NULL;
  FlameDiffOptions dopts;
  guint32 node;

  flame_diff_options_init (&dopts);
  dopts.normalize = FLAME_NORMALIZE_ABSOLUTE;
  diff = flame_diff_new (pa, pb, &dopts, NULL, &error);
  g_assert_no_error (error);
  source = flame_layout_source_new_for_diff (diff, FLAME_VIEW_DIFFERENTIAL);
  g_assert_cmpint (flame_layout_source_get_quantity (source), ==, FLAME_QUANTITY_BYTES);
  node = flame_layout_source_find (source, "main.allocSmall");
  g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
  text = flame_tooltip_text (source, node, FLAME_TREE_ROOT);
  g_assert_nonnull (strstr (text, "Current: 30.63 MiB total"));
  g_assert_nonnull (strstr (text, "Baseline: 10.38 MiB total"));
  g_assert_nonnull (strstr (text, "Self difference: +20.25 MiB (+195.1%)"));
  g_assert_null (strstr (text, " ms"));
  root = flame_tooltip_text (source, FLAME_TREE_ROOT, FLAME_TREE_ROOT);
  g_assert_nonnull (strstr (root, "Current: 93.65 MiB total"));

  single = flame_layout_source_new_for_profile (pa, 0, 1);
  one = flame_tooltip_text (single, FLAME_TREE_ROOT, FLAME_TREE_ROOT);
  g_assert_nonnull (strstr (one, "Total: 74.40 MiB (100.00%)"));
}

/* "time" or "times" as a word (not "runtime.malg") */
static gboolean
says_time (const char *text)
{
  return g_regex_match_simple ("\\btimes?\\b", text, G_REGEX_CASELESS, 0);
}

/* A comparison of bytes or counts never speaks of time: the
 * normalisation sentence of the summary bar, the legend and exported
 * images (flame_normalization_text, _label), the report's header and an
 * SVG's legend. A CPU comparison does, so the check can fail. */
static void
test_memory_never_time (void)
{
  static const struct { const char *type; const char *absolute; const char *label; } cases[] = {
    { "inuse_space", "Absolute bytes: the baseline is not scaled", "Absolute bytes" },
    { "alloc_objects", "Absolute counts: the baseline is not scaled", "Absolute counts" },
  };
  g_autofree char *a = go_file ("go-heap.pb.gz");
  g_autofree char *b = go_file ("go-heap-more.pb.gz");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-units-XXXXXX", &error);
  g_autofree char *svg = g_build_filename (dir, "memory.svg", NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FlameProfile) pa = load (a, cases[i].type);
      g_autoptr(FlameProfile) pb = load (b, cases[i].type);

      for (FlameNormalize n = FLAME_NORMALIZE_ABSOLUTE; n <= FLAME_NORMALIZE_TOTAL; n++)
        {
          g_autoptr(FlameDiff) diff = NULL;
          g_autofree char *text = NULL;
          g_autofree char *label = NULL;
          FlameDiffOptions dopts;

          flame_diff_options_init (&dopts);
          dopts.normalize = n;
          diff = flame_diff_new (pa, pb, &dopts, NULL, &error);
          g_assert_no_error (error);
          text = flame_normalization_text (diff);
          label = flame_normalization_label (diff);
          g_test_message ("%s: %s / %s", cases[i].type, text, label);
          g_assert_false (says_time (text));
          g_assert_false (says_time (label));
          if (n == FLAME_NORMALIZE_ABSOLUTE)
            {
              g_assert_cmpstr (text, ==, cases[i].absolute);
              g_assert_cmpstr (label, ==, cases[i].label);
            }
          else
            g_assert_true (g_str_has_prefix (text, "Baseline scaled ×"));
        }
      for (guint n = 0; n < 2; n++)
        {
          g_auto(FlameTestRun) text = { 0 };
          g_auto(FlameTestRun) md = { 0 };
          g_auto(FlameTestRun) render = { 0 };
          const char *normalize = n == 0 ? "absolute" : "total";

          flame_test_run_cli_va (&text, "compare", "--normalize", normalize,
                                 "--sample-type", cases[i].type, a, b, NULL);
          g_assert_cmpint (text.status, ==, 0);
          g_assert_nonnull (strstr (text.out, "Normalisation: "));
          g_assert_false (says_time (text.out));
          flame_test_run_cli_va (&md, "compare", "--normalize", normalize, "--format", "markdown",
                                 "--sample-type", cases[i].type, a, b, NULL);
          g_assert_cmpint (md.status, ==, 0);
          g_assert_false (says_time (md.out));
          flame_test_run_cli_va (&render, "render", "--legend", "--normalize", normalize,
                                 "--sample-type", cases[i].type, "-o", svg, a, b, NULL);
          g_assert_cmpint (render.status, ==, 0);
          {
            g_autofree char *contents = NULL;

            g_assert_true (g_file_get_contents (svg, &contents, NULL, NULL));
            g_assert_nonnull (strstr (contents, n == 0 ? cases[i].absolute : "Baseline scaled"));
            g_assert_nonnull (strstr (contents, "Colour: change of self amount"));
            g_assert_false (says_time (contents));
          }
        }
    }
  g_unlink (svg);
  g_rmdir (dir);

  /* a CPU comparison says "time" */
  {
    const char *examples = g_getenv ("FLAMEDIFF_EXAMPLES");
    g_autofree char *fb = g_build_filename (examples, "baseline.folded", NULL);
    g_autofree char *fc = g_build_filename (examples, "current.folded", NULL);
    g_autoptr(FlameProfile) pa = load (fb, NULL);
    g_autoptr(FlameProfile) pb = load (fc, NULL);
    g_autoptr(FlameDiff) diff = flame_diff_new (pa, pb, NULL, NULL, &error);
    g_autofree char *text = NULL;

    g_assert_no_error (error);
    text = flame_normalization_text (diff);
    g_assert_true (g_str_has_prefix (text, "Absolute time: the baseline is not scaled"));
    g_assert_true (says_time (text));
  }
}

/* The changes panel's cells: the unit that reads well, one decimal. */
static void
test_format_compact (void)
{
  static const struct { FlameQuantity q; gdouble v; gboolean sign; const char *want; } cases[] = {
    { FLAME_QUANTITY_TIME, 1987667.0, FALSE, "33 min 7.7 s" },
    { FLAME_QUANTITY_TIME, 12.54, FALSE, "12.5 ms" },
    { FLAME_QUANTITY_TIME, 0, TRUE, "+0.0 ms" },
    { FLAME_QUANTITY_TIME, -1500, TRUE, "-1.5 s" },
    { FLAME_QUANTITY_TIME, 59960, FALSE, "1 min 0.0 s" },
    { FLAME_QUANTITY_TIME, 7500000, FALSE, "2 h 5 min" },
    { FLAME_QUANTITY_BYTES, 512, FALSE, "512 B" },
    { FLAME_QUANTITY_BYTES, 1536, TRUE, "+1.5 KiB" },
    { FLAME_QUANTITY_COUNT, -3, TRUE, "-3" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = flame_quantity_format_compact (cases[i].q, cases[i].v, cases[i].sign);

      g_assert_cmpstr (got, ==, flame_test_decimal (cases[i].want));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/units/pprof-sample-types", test_pprof_sample_types);
  g_test_add_func ("/units/refuse-different", test_refuse_different);
  g_test_add_func ("/units/cli-info", test_cli_info_units);
  g_test_add_func ("/units/cli-compare-refuses", test_cli_compare_refuses);
  g_test_add_func ("/units/interval-agrees", test_interval_agrees);
  g_test_add_func ("/units/report-bytes", test_report_bytes);
  g_test_add_func ("/units/convert-roundtrip", test_convert_roundtrip);
  g_test_add_func ("/units/compare-folded-roundtrip", test_compare_folded_roundtrip);
  g_test_add_func ("/units/convert-empty-stack", test_convert_empty_stack);
  g_test_add_func ("/units/tooltip-bytes", test_tooltip_bytes);
  g_test_add_func ("/units/format-compact", test_format_compact);
  g_test_add_func ("/units/memory-never-time", test_memory_never_time);
  g_test_add_func ("/gate/new-function", test_gate_new_function);
  g_test_add_func ("/gate/new-by-total", test_new_by_total);
  return g_test_run ();
}
