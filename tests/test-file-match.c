/* test-file-match.c: the same code profiled from checkouts in different
 * folders matches (docs/diff-semantics.md, "Files from different
 * checkouts"); --exact-paths keeps matching by the full path.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "flame-diff.h"
#include "flame-file-match.h"
#include "flame-provenance.h"
#include "flame-test-utils.h"

/* A profile of stacks written root first as "FILE|func;FILE|func" (a
 * frame without '|' has no file), one sample each, 1 ms interval. Files
 * are free to hold ':' and '\' (Windows paths, URLs). */
static FlameProfile *
profile_of (const char *const *stacks)
{
  FlameProfile *profile = flame_profile_new (FLAME_FORMAT_FOLDED, 1);

  flame_profile_set_interval_ms (profile, 1.0);
  for (guint i = 0; stacks[i] != NULL; i++)
    {
      g_auto(GStrv) frames = g_strsplit (stacks[i], ";", -1);
      guint n = g_strv_length (frames);
      g_autofree guint32 *ids = g_new (guint32, n);

      for (guint f = 0; f < n; f++)
        {
          const char *bar = strchr (frames[f], '|');

          if (bar != NULL)
            ids[f] = flame_profile_intern_frame (profile, bar + 1, strlen (bar + 1),
                                                 frames[f], bar - frames[f], 0, 0);
          else
            ids[f] = flame_profile_intern_frame (profile, frames[f], strlen (frames[f]),
                                                 NULL, 0, 0, 0);
        }
      flame_profile_add_stack (profile, 0, ids, n, 1.0);
      flame_profile_add_samples (profile, 0, 1.0);
    }
  flame_profile_finish (profile);
  return profile;
}

#define S(...) ((const char *const[]) { __VA_ARGS__, NULL })

/* Replaces every "ROOT" in the stacks with @root. */
static FlameProfile *
profile_at (const char *const *stacks,
            const char        *root)
{
  g_autoptr(GPtrArray) s = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; stacks[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (stacks[i], "ROOT", -1);
      g_ptr_array_add (s, g_strjoinv (root, parts));
    }
  g_ptr_array_add (s, NULL);
  return profile_of ((const char *const *) s->pdata);
}

static FlameDiff *
diff_of (FlameProfile *base,
         FlameProfile *cur,
         gboolean      exact)
{
  g_autoptr(GError) error = NULL;
  FlameDiffOptions opts;
  FlameDiff *diff;

  flame_diff_options_init (&opts);
  opts.normalize = FLAME_NORMALIZE_ABSOLUTE;
  opts.exact_paths = exact;
  diff = flame_diff_new (base, cur, &opts, NULL, &error);
  g_assert_no_error (error);
  return diff;
}

/* Nodes that exist on one side only */
static void
count_unmatched (FlameDiff *diff,
                 guint     *n_new,
                 guint     *n_elided)
{
  FlameTree *tree = flame_diff_get_tree (diff);

  *n_new = *n_elided = 0;
  for (guint32 n = 1; n < tree->n_nodes; n++)
    {
      FlameDiffValues v;

      flame_diff_get_values (diff, tree, n, &v);
      *n_new += v.total_b == 0;
      *n_elided += v.total_c == 0;
    }
}

/* The file of the diff's frame @name (which must be unique) */
static const char *
file_of (FlameDiff  *diff,
         const char *name)
{
  FlameFrames *frames = flame_diff_get_frames (diff);
  const char *file = NULL;

  for (guint f = 0; f < flame_frames_count (frames); f++)
    if (strcmp (flame_frames_get_name (frames, f), name) == 0)
      {
        g_assert_null (file);
        file = flame_frames_get_file (frames, f);
      }
  g_assert_nonnull (file);
  return file;
}

static void
assert_all_match (FlameProfile *base,
                  FlameProfile *cur)
{
  g_autoptr(FlameDiff) diff = diff_of (base, cur, FALSE);
  guint n_new, n_elided;

  count_unmatched (diff, &n_new, &n_elided);
  g_assert_cmpuint (n_new, ==, 0);
  g_assert_cmpuint (n_elided, ==, 0);
  g_assert_cmpuint (flame_diff_get_elided_count (diff), ==, 0);
}

/* A Go program: project files, the module cache, GOROOT */
static const char *const go_stacks[] = {
  "/usr/local/go/src/runtime/proc.go|runtime.main;ROOT/cmd/app/main.go|main.main;"
  "ROOT/internal/work/work.go|work.Do;ROOT/internal/work/hash.go|work.hash",
  "/usr/local/go/src/runtime/proc.go|runtime.main;ROOT/cmd/app/main.go|main.main;"
  "/home/ci/go/pkg/mod/github.com/klauspost/compress@v1.17.0/zstd/enc.go|zstd.Encode",
  "/usr/local/go/src/runtime/proc.go|runtime.main;ROOT/cmd/app/main.go|main.main;"
  "/usr/local/go/src/runtime/malloc.go|runtime.mallocgc",
  NULL
};

static void
test_checkouts (void)
{
  g_autoptr(FlameProfile) base = profile_at (go_stacks, "/builds/1234/proj");
  g_autoptr(FlameProfile) cur = profile_at (go_stacks, "/tmp/pr-77/proj");
  g_autoptr(FlameDiff) diff = diff_of (base, cur, FALSE);
  g_autoptr(FlameDiff) exact = diff_of (base, cur, TRUE);
  guint n_new, n_elided;

  assert_all_match (base, cur);
  /* a comparison shows the current run's paths */
  g_assert_cmpstr (file_of (diff, "work.hash"), ==, "/tmp/pr-77/proj/internal/work/hash.go");
  g_assert_cmpstr (file_of (diff, "runtime.mallocgc"), ==, "/usr/local/go/src/runtime/malloc.go");

  /* exact paths: today's behaviour, every project frame removed and new */
  count_unmatched (exact, &n_new, &n_elided);
  g_assert_cmpuint (n_new, ==, 5);
  g_assert_cmpuint (n_elided, ==, 5);
  g_assert_cmpuint (flame_diff_get_elided_stacks (exact), ==, 3);

  /* and the same checkout is the same, either way */
  {
    g_autoptr(FlameProfile) again = profile_at (go_stacks, "/builds/1234/proj");
    g_autoptr(FlameDiff) d = diff_of (base, again, TRUE);
    count_unmatched (d, &n_new, &n_elided);
    g_assert_cmpuint (n_new + n_elided, ==, 0);
  }
}

/* Each profile's own common directory differs (the baseline ran code in
 * src/ only) and the project lies next to moved library paths. */
static void
test_checkouts_partial (void)
{
  g_autoptr(FlameProfile) base = profile_of (S (
    "/home/a/proj-main/src/app.py|<module>;/home/a/proj-main/src/app.py|main;"
    "/usr/lib/python3.11/json/encoder.py|JSONEncoder.encode",
    "/home/a/proj-main/src/app.py|<module>;/home/a/proj-main/src/util.py|helper"));
  g_autoptr(FlameProfile) cur = profile_of (S (
    "/home/a/proj-pr/src/app.py|<module>;/home/a/proj-pr/src/app.py|main;"
    "/usr/lib/python3.12/json/encoder.py|JSONEncoder.encode",
    "/home/a/proj-pr/src/app.py|<module>;/home/a/proj-pr/src/util.py|helper",
    "/home/a/proj-pr/src/app.py|<module>;/home/a/proj-pr/cmd/cli.py|run;"
    "/usr/lib/python3.12/json/decoder.py|JSONDecoder.decode"));
  g_autoptr(FlameDiff) diff = diff_of (base, cur, FALSE);
  guint n_new, n_elided;

  count_unmatched (diff, &n_new, &n_elided);
  /* only cli.py's run and what it called are new */
  g_assert_cmpuint (n_new, ==, 2);
  g_assert_cmpuint (n_elided, ==, 0);
  g_assert_cmpstr (file_of (diff, "JSONEncoder.encode"), ==, "/usr/lib/python3.12/json/encoder.py");
}

/* One file each side; relative paths against absolute ones; Windows
 * paths with either separator; URLs. */
static void
test_checkouts_shapes (void)
{
  static const struct { const char *base, *cur; } cases[] = {
    { "/builds/1234/x.py", "/tmp/pr-77/src/x.py" },
    { "src/x.go", "/tmp/pr-77/proj/src/x.go" },
    { "C:\\builds\\1234\\proj\\src\\x.cs", "D:\\a\\pr-77\\proj\\src\\x.cs" },
    { "C:\\builds\\proj\\src\\x.cs", "C:/work/proj/src/x.cs" },
    { "http://localhost:8080/static/js/app.js", "http://localhost:3000/static/js/app.js" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *sb = g_strdup_printf ("%s|main;%s|work", cases[i].base, cases[i].base);
      g_autofree char *sc = g_strdup_printf ("%s|main;%s|work", cases[i].cur, cases[i].cur);
      g_autoptr(FlameProfile) base = profile_of (S (sb));
      g_autoptr(FlameProfile) cur = profile_of (S (sc));

      assert_all_match (base, cur);
    }
}

/* What must not match: a file that shares only its name with one in
 * another directory while the rest of the checkout says otherwise, and a
 * name two files of the current run share. */
static void
test_checkouts_not_matched (void)
{
  {
    g_autoptr(FlameProfile) base = profile_of (S (
      "/b/proj/x.go|main;/b/proj/y.go|y",
      "/b/proj/x.go|main;/b/proj/a/util.go|f"));
    g_autoptr(FlameProfile) cur = profile_of (S (
      "/t/proj/x.go|main;/t/proj/y.go|y",
      "/t/proj/x.go|main;/t/proj/b/util.go|f"));
    g_autoptr(FlameDiff) diff = diff_of (base, cur, FALSE);
    g_autoptr(GHashTable) map = flame_file_match_new (flame_profile_get_frames (base),
                                                      flame_profile_get_frames (cur));
    guint n_new, n_elided;

    /* x.go and y.go say /b is /t: a/util.go would be /t/proj/a/util.go */
    g_assert_cmpuint (g_hash_table_size (map), ==, 2);
    count_unmatched (diff, &n_new, &n_elided);
    g_assert_cmpuint (n_new, ==, 1);
    g_assert_cmpuint (n_elided, ==, 1);
  }
  {
    g_autoptr(FlameProfile) base = profile_of (S ("/x/util.go|f"));
    g_autoptr(FlameProfile) cur = profile_of (S ("/t/a/util.go|f", "/t/b/util.go|f"));
    g_autoptr(GHashTable) map = flame_file_match_new (flame_profile_get_frames (base),
                                                      flame_profile_get_frames (cur));

    g_assert_cmpuint (g_hash_table_size (map), ==, 0);
  }
  {
    /* in the same checkout, a removed file stays removed even if a new
     * one of the same name appeared elsewhere and an old one is kept */
    g_autoptr(FlameProfile) base = profile_of (S ("/p/a/util.go|f", "/p/b/util.go|f"));
    g_autoptr(FlameProfile) cur = profile_of (S ("/p/b/util.go|f", "/p/c/util.go|f"));
    g_autoptr(GHashTable) map = flame_file_match_new (flame_profile_get_frames (base),
                                                      flame_profile_get_frames (cur));

    /* a/util.go and c/util.go are the only unpaired files: a move */
    g_assert_cmpuint (g_hash_table_size (map), ==, 1);
  }
}

/* Recorded binaries follow the same rule: the program rebuilt in another
 * checkout is "changed", not "removed" plus "added". */
static void
test_binaries (void)
{
  g_autoptr(FlameProfile) base = profile_of (S ("main"));
  g_autoptr(FlameProfile) cur = profile_of (S ("main"));

  flame_profile_set_metadata (base, "build_ids",
                              "/builds/1234/proj/build/imgconv=aaaa;"
                              "/builds/1234/proj/build/libfilters.so=dddd;/lib/libc.so.6=cccc");
  flame_profile_set_metadata (cur, "build_ids",
                              "/tmp/pr-77/proj/build/imgconv=bbbb;"
                              "/tmp/pr-77/proj/build/libfilters.so=dddd;/lib/libc.so.6=cccc");
  for (guint exact = 0; exact < 2; exact++)
    {
      g_autoptr(GPtrArray) bins = flame_binaries_compare (base, cur, exact);
      guint n[4] = { 0 };

      for (guint i = 0; i < bins->len; i++)
        {
          const FlameBinary *bin = g_ptr_array_index (bins, i);

          n[bin->status]++;
          if (!exact && bin->status == FLAME_BINARY_CHANGED)
            {
              g_assert_cmpstr (bin->path, ==, "/tmp/pr-77/proj/build/imgconv");
              g_assert_cmpstr (bin->baseline_build_id, ==, "aaaa");
              g_assert_cmpstr (bin->current_build_id, ==, "bbbb");
            }
        }
      g_assert_cmpuint (n[FLAME_BINARY_CHANGED], ==, exact ? 0 : 1);
      g_assert_cmpuint (n[FLAME_BINARY_SAME], ==, exact ? 1 : 2);
      g_assert_cmpuint (n[FLAME_BINARY_ADDED], ==, exact ? 2 : 0);
      g_assert_cmpuint (n[FLAME_BINARY_REMOVED], ==, exact ? 2 : 0);
    }
}

/* The CLI flag */
static void
test_cli_exact_paths (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flamediff-file-match-XXXXXX", &error);
  g_autofree char *a = g_build_filename (dir, "a.speedscope.json", NULL);
  g_autofree char *b = g_build_filename (dir, "b.speedscope.json", NULL);
  static const char doc[] =
    "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\","
    " \"shared\": {\"frames\": [{\"name\": \"main\", \"file\": \"%s/src/main.js\"},"
    " {\"name\": \"work\", \"file\": \"%s/src/work.js\"}]},"
    " \"profiles\": [{\"type\": \"sampled\", \"name\": \"p\", \"unit\": \"milliseconds\","
    " \"startValue\": 0, \"endValue\": 3, \"samples\": [[0, 1], [0, 1], [0]],"
    " \"weights\": [1, 1, 1]}]}";
  g_autofree char *ta = g_strdup_printf (doc, "/builds/1234/proj", "/builds/1234/proj");
  g_autofree char *tb = g_strdup_printf (doc, "/tmp/pr-77/proj", "/tmp/pr-77/proj");
  g_auto(FlameTestRun) r1 = { 0 };
  g_auto(FlameTestRun) r2 = { 0 };
  const char *args1[] = { "compare", "--format", "json", a, b, NULL };
  const char *args2[] = { "compare", "--format", "json", "--exact-paths", a, b, NULL };

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (a, ta, -1, NULL));
  g_assert_true (g_file_set_contents (b, tb, -1, NULL));
  flame_test_run_cli (&r1, args1);
  g_assert_cmpint (r1.status, ==, 0);
  g_assert_nonnull (strstr (r1.out, "\"new\": 0, \"removed\": 0"));
  flame_test_run_cli (&r2, args2);
  g_assert_cmpint (r2.status, ==, 0);
  g_assert_nonnull (strstr (r2.out, "\"new\": 2, \"removed\": 2"));
  g_remove (a);
  g_remove (b);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/file-match/checkouts", test_checkouts);
  g_test_add_func ("/file-match/checkouts-partial", test_checkouts_partial);
  g_test_add_func ("/file-match/shapes", test_checkouts_shapes);
  g_test_add_func ("/file-match/not-matched", test_checkouts_not_matched);
  g_test_add_func ("/file-match/binaries", test_binaries);
  g_test_add_func ("/file-match/cli-exact-paths", test_cli_exact_paths);
  return g_test_run ();
}
