/* test-folded.c: the folded-stack loader, its quirks, and the corpus.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
# include <errno.h>
# include <sys/resource.h>
# include <sys/syscall.h>
# include <unistd.h>
#endif

#include "flame-alloc.h"
#include "flame-error.h"
#include "flame-folded.h"
#include "flame-parallel.h"
#include "flame-loader.h"
#include "flame-test-utils.h"

static FlameProfile *
load_text (const char  *text,
           gssize       len,
           GError     **error)
{
  g_autoptr(GBytes) raw = g_bytes_new (text, len < 0 ? strlen (text) : (gsize) len);
  g_autoptr(GBytes) bytes = flame_decode_bytes ("test.folded", raw, NULL, error);

  if (bytes == NULL)
    return NULL;
  return flame_load_bytes ("test.folded", bytes, NULL, NULL, NULL, error);
}

/* Self and total per frame name, total counted once per stack. */
static void
frame_weights (FlameProfile *profile,
               guint         column,
               const char   *name,
               gdouble      *self_w,
               gdouble      *total_w)
{
  FlameFrames *frames = flame_profile_get_frames (profile);
  guint n = flame_frames_count (frames);
  g_autofree gdouble *s = g_new0 (gdouble, n);
  g_autofree gdouble *t = g_new0 (gdouble, n);

  flame_profile_ensure_totals (profile);
  flame_tree_function_weights (flame_profile_get_tree (profile), n, column, s, t);
  *self_w = *total_w = -1;
  for (guint f = 0; f < n; f++)
    if (strcmp (flame_frames_get_name (frames, f), name) == 0)
      {
        *self_w = s[f];
        *total_w = t[f];
      }
}

static void
assert_frame (FlameProfile *profile,
              const char   *name,
              gdouble       self_w,
              gdouble       total_w)
{
  gdouble s, t;

  frame_weights (profile, 0, name, &s, &t);
  if (s < 0)
    g_error ("no frame named %s", name);
  g_assert_cmpfloat_with_epsilon (s, self_w, 1e-9);
  g_assert_cmpfloat_with_epsilon (t, total_w, 1e-9);
}

/* Adds @n children of the root (frames @first on) until the index has
 * grown once; returns the number added */
static guint32
add_until_grown (FlameTree *tree,
                 guint32    first)
{
  guint32 mask = tree->mask;
  guint32 n = 0;

  while (tree->mask == mask)
    flame_tree_child (tree, FLAME_TREE_ROOT, first + n++);
  return n;
}

/* An index that fills up grows toward what the loader expects (at most
 * four times its size), doubles without an estimate or with one already
 * passed, and finds every node afterwards either way. */
typedef struct
{
  guint8 *visits;
  gint    calls;
} Visits;

static void
count_visits (gsize    start,
              gsize    end,
              gpointer data)
{
  Visits *v = data;

  g_assert_cmpuint (start, <, end);
  g_atomic_int_inc (&v->calls);
  for (gsize i = start; i < end; i++)
    v->visits[i]++;
}

/* flame_parallel_for() calls its function on non-empty pieces that cover
 * the range once, whatever the range and the least a thread is given */
static void
test_parallel_for (void)
{
  const gsize sizes[] = { 0, 1, 2, 7, 10, 15, 16, 17, 100, 1000, 4097 };
  const gsize mins[] = { 0, 1, 2, 3, 5, 64, 1 << 20 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint m = 0; m < G_N_ELEMENTS (mins); m++)
      {
        g_autofree guint8 *visits = g_new0 (guint8, sizes[s] + 1);
        Visits v = { visits, 0 };

        flame_parallel_for (sizes[s], mins[m], count_visits, &v);
        for (gsize i = 0; i < sizes[s]; i++)
          g_assert_cmpuint (visits[i], ==, 1);
        g_assert_cmpuint (visits[sizes[s]], ==, 0);
        g_assert_cmpint (v.calls, <=, MAX (g_get_num_processors (), 1));
        if (sizes[s] == 0)
          g_assert_cmpint (v.calls, ==, 0);
        else
          g_assert_cmpint (v.calls, >=, 1);
      }
}

typedef struct
{
  GString *taken;
  gsize    n_taken;
  gint     calls;   /* of the task function, from every thread */
} TextTasks;

static void
write_text_task (gsize    task,
                 GString *out,
                 gpointer data)
{
  TextTasks *t = data;

  g_assert_cmpuint (out->len, ==, 0);
  /* uneven tasks, so that they finish out of order */
  for (gsize i = 0; i < 1 + (task * 7919) % 13 * 1000; i++)
    g_string_append_printf (out, "%" G_GSIZE_FORMAT ".%" G_GSIZE_FORMAT "\n", task, i);
  g_atomic_int_inc (&t->calls);
}

static void
take_text (GString *text,
           gpointer data)
{
  TextTasks *t = data;

  g_string_append_len (t->taken, text->str, text->len);
  t->n_taken++;
}

#ifdef __linux__
static int
thread_nice (void)
{
  errno = 0;
  return getpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid));
}

static gpointer
nice_child (gpointer data)
{
  int *seen = data;

  seen[0] = thread_nice ();     /* inherited */
  flame_parallel_enter_background ();
  seen[1] = thread_nice ();     /* not lowered again */
  return NULL;
}

static gpointer
nice_worker (gpointer data)
{
  int *seen = data;

  flame_parallel_enter_background ();
  seen[0] = thread_nice ();
  flame_parallel_enter_background ();
  seen[1] = thread_nice ();
  g_thread_join (g_thread_new ("child", nice_child, seen + 2));
  return NULL;
}
#endif

/* Background work runs a set amount below the thread that asked for it:
 * once per thread, inherited by the threads it starts, never on the
 * asking thread, and not at all unless asked (the command-line tool) */
static void
test_background_nice (void)
{
#ifdef __linux__
  int base = thread_nice ();
  int seen[4];

  if (base > 19 - 3)
    {
      g_test_skip ("already at the lowest priority");
      return;
    }
  g_thread_join (g_thread_new ("worker", nice_worker, seen));
  g_assert_cmpint (seen[0], ==, base);
  g_assert_cmpint (seen[3], ==, base);

  flame_parallel_set_background_nice (3);
  flame_parallel_enter_background ();
  g_assert_cmpint (thread_nice (), ==, base);
  g_thread_join (g_thread_new ("worker", nice_worker, seen));
  g_assert_cmpint (seen[0], ==, base + 3);
  g_assert_cmpint (seen[1], ==, base + 3);
  g_assert_cmpint (seen[2], ==, base + 3);
  g_assert_cmpint (seen[3], ==, base + 3);
  g_assert_cmpint (thread_nice (), ==, base);

  flame_parallel_set_background_nice (0);
  g_thread_join (g_thread_new ("worker", nice_worker, seen));
  g_assert_cmpint (seen[0], ==, base);
#else
  g_test_skip ("thread priorities are per thread on Linux only");
#endif
}

/* Per-function weights of a tree large enough to be marked on every core
 * (flame_tree_function_weights_columns()): a chain of single children
 * at the top, as profiles start, then random branches where frames recur
 * at several depths; the totals count each frame once per stack, as an
 * independent walk up every node's ancestors finds */
static void
test_function_weights_large (void)
{
  const guint n_frames = 40;
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  FlameTree *tree = flame_tree_new (2);
  gdouble *s[2], *t[2];
  g_autofree gdouble *want_s = NULL;
  g_autofree gdouble *want_t = NULL;
  const guint columns[2] = { 0, 1 };
  guint32 top = FLAME_TREE_ROOT;

  for (guint d = 0; d < 5; d++)
    top = flame_tree_child (tree, top, d % 3);
  while (tree->n_nodes < 300000)
    {
      guint32 node = top;
      guint depth = 1 + g_rand_int_range (rand, 0, 30);

      for (guint d = 0; d < depth; d++)
        node = flame_tree_child (tree, node, g_rand_int_range (rand, 0, n_frames));
      flame_tree_add_self (tree, 0, node, g_rand_int_range (rand, 1, 100));
      flame_tree_add_self (tree, 1, node, g_rand_double (rand));
    }
  flame_tree_finish (tree);

  for (guint k = 0; k < 2; k++)
    {
      s[k] = g_new0 (gdouble, n_frames);
      t[k] = g_new0 (gdouble, n_frames);
    }
  flame_tree_function_weights_columns (tree, n_frames, 2, columns, s, t);

  want_s = g_new0 (gdouble, n_frames * 2);
  want_t = g_new0 (gdouble, n_frames * 2);
  for (guint32 n = 1; n < tree->n_nodes; n++)
    {
      const FlameNode *node = &tree->nodes[n];
      gboolean outermost = TRUE;

      for (guint32 a = node->parent; a != FLAME_TREE_ROOT && outermost; a = tree->nodes[a].parent)
        outermost = tree->nodes[a].frame != node->frame;
      for (guint k = 0; k < 2; k++)
        {
          want_s[k * n_frames + node->frame] += tree->self[k][n];
          if (outermost)
            want_t[k * n_frames + node->frame] += tree->total[k][n];
        }
    }
  for (guint k = 0; k < 2; k++)
    for (guint f = 0; f < n_frames; f++)
      {
        /* the same sums in the same (node) order: equal to the bit */
        g_assert_cmpfloat (s[k][f], ==, want_s[k * n_frames + f]);
        g_assert_cmpfloat (t[k][f], ==, want_t[k * n_frames + f]);
      }
  g_assert_cmpfloat (t[0][0], >, 0);
  for (guint k = 0; k < 2; k++)
    {
      g_free (s[k]);
      g_free (t[k]);
    }
  flame_tree_free (tree);
}

/* flame_parallel_text() runs each task once and hands over their texts
 * in task order, whatever order they finish in */
static void
test_parallel_text (void)
{
  const gsize sizes[] = { 0, 1, 2, 3, 17, 200 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr(GString) expected = g_string_new (NULL);
      g_autoptr(GString) taken = g_string_new (NULL);
      TextTasks t = { taken, 0, 0 };

      for (gsize task = 0; task < sizes[s]; task++)
        {
          g_autoptr(GString) one = g_string_new (NULL);

          write_text_task (task, one, &(TextTasks) { NULL, 0, 0 });
          g_string_append_len (expected, one->str, one->len);
        }
      flame_parallel_text (sizes[s], write_text_task, take_text, &t);
      g_assert_cmpuint (t.n_taken, ==, sizes[s]);
      g_assert_cmpint (t.calls, ==, (gint) sizes[s]);
      g_assert_true (g_string_equal (taken, expected));
    }
}

/* flame_zero_large() and flame_copy_large() on blocks large enough to be
 * shared among threads (at an odd offset and length, so that the spans
 * do not fall on huge pages): every byte of the range written, none
 * outside it. */
static void
test_fill_large (void)
{
  gsize len = ((gsize) 80 << 20) + 12345, off = 3;
  guint8 *dst = flame_alloc_huge (len + 16);
  guint8 *src = flame_alloc_huge (len);
  gsize bad = 0;

  for (gsize i = 0; i < len; i++)
    src[i] = (guint8) (i * 2654435761u >> 13);
  memset (dst, 0xab, len + 16);
  flame_zero_large (dst + off, len);
  for (gsize i = 0; i < len + 16; i++)
    bad += dst[i] != (i >= off && i < off + len ? 0 : 0xab);
  g_assert_cmpuint (bad, ==, 0);

  flame_copy_large (dst + off, src, len);
  g_assert_cmpint (memcmp (dst + off, src, len), ==, 0);
  g_assert_cmpuint (dst[0], ==, 0xab);
  g_assert_cmpuint (dst[off + len], ==, 0xab);

  /* small ones, done at once */
  flame_zero_large (dst + 1, 5);
  g_assert_cmpuint (dst[0], ==, 0xab);
  for (gsize i = 1; i < 6; i++)
    g_assert_cmpuint (dst[i], ==, 0);
  g_assert_cmpuint (dst[6], ==, src[6 - off]);
  flame_zero_large (dst, 0);
  g_free (dst);
  g_free (src);
}

static void
test_tree_expect_nodes (void)
{
  FlameTree *plain = flame_tree_new (1);
  FlameTree *hinted = flame_tree_new (1);
  guint32 mask = plain->mask;
  guint32 n;

  g_assert_cmpuint (hinted->mask, ==, mask);
  n = add_until_grown (plain, 0);
  g_assert_cmpuint (plain->mask, ==, mask * 2 + 1);

  /* room for 4000 nodes at 60 %: 8192 slots, four times the first */
  flame_tree_expect_nodes (hinted, 4000);
  g_assert_cmpuint (add_until_grown (hinted, 0), ==, n);
  g_assert_cmpuint (hinted->mask, ==, mask * 4 + 3);
  /* an estimate far beyond: still four times at most */
  flame_tree_expect_nodes (hinted, 10000000);
  n = add_until_grown (hinted, 100000);
  g_assert_cmpuint (hinted->mask, ==, (mask * 4 + 3) * 4 + 3);
  /* one already passed: doubling */
  flame_tree_expect_nodes (hinted, 10);
  add_until_grown (hinted, 200000);
  g_assert_cmpuint (hinted->mask, ==, ((mask * 4 + 3) * 4 + 3) * 2 + 1);

  for (guint32 f = 0; f < n; f++)
    {
      guint32 node = flame_tree_lookup (hinted, FLAME_TREE_ROOT, 100000 + f);

      g_assert_cmpuint (node, !=, FLAME_TREE_NONE);
      g_assert_cmpuint (hinted->nodes[node].frame, ==, 100000 + f);
    }
  g_assert_cmpuint (flame_tree_lookup (hinted, FLAME_TREE_ROOT, 100000 + n), ==, FLAME_TREE_NONE);
  flame_tree_free (plain);
  flame_tree_free (hinted);
}

/* Both columns of a pair in one walk give what one walk per column
 * gives, recursion (a;b;a) counted once per stack on each side. */
static void
test_function_weights_columns (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text ("a;b;a;c 2 7\na;b 1 0\nb;a;b 4 3\nc 0 5\n", -1, &error);
  FlameTree *tree;
  guint n;
  const guint columns[2] = { 1, 0 };
  g_autofree gdouble *s0 = NULL, *t0 = NULL, *s1 = NULL, *t1 = NULL;
  g_autofree gdouble *bs0 = NULL, *bt0 = NULL, *bs1 = NULL, *bt1 = NULL;

  g_assert_no_error (error);
  flame_profile_ensure_totals (p);
  tree = flame_profile_get_tree (p);
  n = flame_frames_count (flame_profile_get_frames (p));
  s0 = g_new0 (gdouble, n); t0 = g_new0 (gdouble, n);
  s1 = g_new0 (gdouble, n); t1 = g_new0 (gdouble, n);
  bs0 = g_new0 (gdouble, n); bt0 = g_new0 (gdouble, n);
  bs1 = g_new0 (gdouble, n); bt1 = g_new0 (gdouble, n);
  flame_tree_function_weights (tree, n, 0, s0, t0);
  flame_tree_function_weights (tree, n, 1, s1, t1);
  {
    gdouble *selfs[2] = { bs1, bs0 };
    gdouble *totals[2] = { bt1, bt0 };

    flame_tree_function_weights_columns (tree, n, 2, columns, selfs, totals);
  }
  for (guint f = 0; f < n; f++)
    {
      g_assert_cmpfloat (bs0[f], ==, s0[f]);
      g_assert_cmpfloat (bt0[f], ==, t0[f]);
      g_assert_cmpfloat (bs1[f], ==, s1[f]);
      g_assert_cmpfloat (bt1[f], ==, t1[f]);
    }
  /* a: once per stack; side 0: 2 + 1 + 4, side 1: 7 + 0 + 3 */
  frame_weights (p, 0, "a", &s0[0], &t0[0]);
  g_assert_cmpfloat (t0[0], ==, 7);
  frame_weights (p, 1, "a", &s0[0], &t0[0]);
  g_assert_cmpfloat (t0[0], ==, 10);
}

static void
test_basic (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text ("a;b;c 2\na;b;d 4\na;b;c 3\na;b 5", -1, &error);

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_format (p), ==, FLAME_FORMAT_FOLDED);
  g_assert_cmpfloat (flame_profile_get_samples (p, 0), ==, 14);
  g_assert_cmpfloat (flame_profile_get_total_weight (p, 0), ==, 14);
  g_assert_cmpfloat (flame_profile_get_interval_ms (p), ==, 0);
  assert_frame (p, "a", 0, 14);
  assert_frame (p, "b", 5, 14);
  assert_frame (p, "c", 5, 5);
  assert_frame (p, "d", 4, 4);
  g_assert_cmpuint (flame_profile_get_warnings (p)->len, ==, 0);
}

/* Names with spaces, colons, brackets; the count after the last blank;
 * a tab before the count; trailing blanks and CR; comments; BOM. */
static void
test_quirks (void)
{
  const char *text =
    "\xef\xbb\xbf# header comment\r\n"
    "main;std::vector<int>::push_back(int const&) [clone .cold] 3\r\n"
    "main;<frozen importlib._bootstrap>:_find_and_load:1379\t2   \r\n"
    "main;thread (123);work 1.5\r\n"
    "main;core::array::<impl core::default::Default for [T; _]>::default::h67c9 7\r\n"
    "main;x 6.\r\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text (text, -1, &error);

  g_assert_no_error (error);
  assert_frame (p, "std::vector<int>::push_back(int const&) [clone .cold]", 3, 3);
  assert_frame (p, "<frozen importlib._bootstrap>:_find_and_load:1379", 2, 2);
  assert_frame (p, "work", 1.5, 1.5);
  assert_frame (p, "thread (123)", 0, 1.5);
  /* a ';' inside "[T; _]" cannot be told from a separator (formats.md §1.5) */
  assert_frame (p, "core::array::<impl core::default::Default for [T", 0, 7);
  assert_frame (p, " _]>::default::h67c9", 7, 7);
  assert_frame (p, "x", 6, 6);
  assert_frame (p, "main", 0, 19.5);
  g_assert_cmpfloat (flame_profile_get_samples (p, 0), ==, 19.5);
}

static void
assert_not_profile (const char *path,
                    const char *seems)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = flame_load_file (path, NULL, NULL, NULL, &error);

  g_assert_null (p);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, seems));
  g_assert_nonnull (
    strstr (error->message, "Flamediff reads folded stacks, perf script output, perf.data, pprof"));
}

/* Real output of other tools (tests/data/not-profiles/README.md says how
 * it was made): refused with an error naming what the file seems to be.
 * Before, callgrind and cachegrind output loaded as folded profiles.
 * callgrind, pstats and perf.data files have loaders now: they load as
 * themselves. */
static void
test_not_profiles (void)
{
  static const struct { const char *file; FlameFormat format; } call_graphs[] = {
    { "tiny.callgrind", FLAME_FORMAT_CALLGRIND },
    { "tiny.pstats", FLAME_FORMAT_PSTATS },
    { "tiny.perf.data", FLAME_FORMAT_PERF_DATA },
  };
  static const struct { const char *file, *seems; } files[] = {
    { "tiny.cachegrind", "cachegrind output" },
  };
  g_autofree char *dir = g_dir_make_tmp ("flamediff-test-XXXXXX", NULL);
  g_autofree char *html = g_build_filename (dir, "report.html", NULL);
  g_autofree char *syscap = g_build_filename (dir, "capture.syscap", NULL);
  /* a Sysprof capture header: magic 0xFDCA975E little-endian, version 1,
   * little_endian, padding, capture time (sysprof-capture-types.h) */
  static const guint8 syscap_header[] = {
    0x5e, 0x97, 0xca, 0xfd, 0x01, 0x01, 0x00, 0x00,
    '2', '0', '2', '6', '-', '1', '2', '-', '0', '1', 'T', '1', '2', ':', '0', '0',
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "not-profiles",
                                                     files[i].file, NULL);
      assert_not_profile (path, files[i].seems);
    }
  for (guint i = 0; i < G_N_ELEMENTS (call_graphs); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "not-profiles",
                                                     call_graphs[i].file, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = flame_load_file (path, NULL, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpint (flame_profile_get_format (p), ==, call_graphs[i].format);
    }
  /* an ELF program: the CLI's own binary */
  assert_not_profile (g_getenv ("FLAMEDIFF_CLI"), "an ELF program");

  g_assert_true (g_file_set_contents (html, "<!DOCTYPE html>\n<html><body>\nsamples 5\n"
                                            "</body></html>\n", -1, NULL));
  assert_not_profile (html, "an HTML page");
  g_assert_true (g_file_set_contents (syscap, (const char *) syscap_header,
                                      sizeof syscap_header, NULL));
  {
    /* read as what it is (tests/test-sysprof.c): its header is cut short */
    g_autoptr(GError) error = NULL;
    g_autoptr(FlameProfile) p = flame_load_file (syscap, NULL, NULL, NULL, &error);

    g_assert_null (p);
    g_assert_error (error, FLAME_ERROR, FLAME_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "the capture's header is cut short"));
  }
  g_unlink (html);
  g_unlink (syscap);
  g_rmdir (dir);
}

/* Without its header, cachegrind's body is records ("fl=", "fn=") and
 * cost lines of numbers only, which parse as "stack count" but are no
 * stacks: not sniffed as folded. */
static void
test_sniff_cost_lines (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "not-profiles",
                                                 "tiny.cachegrind", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = NULL;
  const char *body;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  body = strstr (text, "\nfn=");
  g_assert_nonnull (body);
  p = load_text (body + 1, -1, &error);
  g_assert_null (p);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT);
  g_assert_nonnull (strstr (error->message, "neither folded stacks"));
  g_clear_error (&error);

  /* the same cost lines under frame names are a folded profile */
  g_clear_object (&p);
  p = load_text ("main;work 128\nmain;more 2 1\nmain 0x10\n+2 5\n", -1, &error);
  g_assert_no_error (error);
}

static void
test_bad_lines (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p =
    load_text ("a;b 1\nTHIS IS A BAD LINE\na;c 2\nbad 12V.43\n.5\na;d -3\na;e 1\na;f 1\n", -1,
               &error);
  const char *warning;

  g_assert_no_error (error);
  assert_frame (p, "a", 0, 5);
  g_assert_cmpuint (flame_profile_get_warnings (p)->len, ==, 1);
  warning = g_ptr_array_index (flame_profile_get_warnings (p), 0);
  g_assert_nonnull (strstr (warning, "skipped 4 lines"));
  g_assert_nonnull (strstr (warning, "line 2"));
}

static void
test_no_valid_line (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text ("a;b 1x\nnot a profile\n", -1, &error);

  g_assert_null (p);
  /* not even sniffed as folded: it is an unknown format */
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT);
  g_clear_error (&error);

  p = load_text ("", 0, &error);
  g_assert_null (p);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_EMPTY);
  g_assert_nonnull (strstr (error->message, "test.folded"));
  g_clear_error (&error);

  /* mostly valid at the start, then nothing: the error names a line */
  {
    g_autoptr(GString) s = g_string_new (NULL);
    g_autoptr(FlameProfile) q = NULL;
    FlameInput in = { "test.folded", NULL, 0, NULL, NULL, NULL, 0 };

    g_string_append (s, "# only\n# comments\nbad line\n");
    in.data = s->str;
    in.len = s->len;
    q = flame_folded_load (&in, &error);
    g_assert_null (q);
    g_assert_error (error, FLAME_ERROR, FLAME_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "test.folded:3:"));
  }
}

static void
test_pair (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text ("a;b 1 2\na;c 3 0\na;d 0 4.5\n", -1, &error);
  gdouble s, t;

  g_assert_no_error (error);
  g_assert_cmpint (flame_profile_get_format (p), ==, FLAME_FORMAT_FOLDED_PAIR);
  g_assert_cmpuint (flame_profile_get_n_columns (p), ==, 2);
  g_assert_cmpfloat (flame_profile_get_samples (p, 0), ==, 4);
  g_assert_cmpfloat (flame_profile_get_samples (p, 1), ==, 6.5);
  frame_weights (p, 1, "d", &s, &t);
  g_assert_cmpfloat (s, ==, 4.5);
  frame_weights (p, 0, "c", &s, &t);
  g_assert_cmpfloat (s, ==, 3);
}

static void
test_gzip_utf16 (void)
{
  const char *text = "a;b 3\na;c 4\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(GConverter) gz =
    G_CONVERTER (g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1));
  guint8 out[256];
  gsize read, written;
  g_autoptr(FlameProfile) p = NULL;
  g_autoptr(FlameProfile) q = NULL;
  g_autofree gunichar2 *utf16 = NULL;
  glong n16;
  g_autoptr(GByteArray) le = g_byte_array_new ();

  g_converter_convert (gz, text, strlen (text), out, sizeof out,
                       G_CONVERTER_INPUT_AT_END, &read, &written, &error);
  g_assert_no_error (error);
  p = load_text ((const char *) out, written, &error);
  g_assert_no_error (error);
  assert_frame (p, "a", 0, 7);

  /* truncated gzip data is an error, not a crash */
  g_clear_object (&p);
  p = load_text ((const char *) out, written / 2, &error);
  g_assert_null (p);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_PARSE);
  g_clear_error (&error);

  utf16 = g_utf8_to_utf16 (text, -1, NULL, &n16, NULL);
  g_byte_array_append (le, (const guint8 *) "\xff\xfe", 2);
  for (glong i = 0; i < n16; i++)
    {
      guint8 c[2] = { utf16[i] & 0xff, utf16[i] >> 8 };
      g_byte_array_append (le, c, 2);
    }
  q = load_text ((const char *) le->data, le->len, &error);
  g_assert_no_error (error);
  assert_frame (q, "c", 4, 4);
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text ("a;b\xff\xfe 1\n", -1, &error);

  g_assert_no_error (error);
  assert_frame (p, "b??", 1, 1);
  g_assert_cmpuint (flame_profile_get_warnings (p)->len, ==, 1);
}

static void
test_limits (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) s = g_string_new ("a;");
  g_autoptr(FlameProfile) p = NULL;

  for (guint i = 0; i < FLAME_MAX_NAME_LEN + 10; i++)
    g_string_append_c (s, 'x');
  g_string_append (s, " 1\n");
  p = load_text (s->str, s->len, &error);
  g_assert_null (p);
  g_assert_error (error, FLAME_ERROR, FLAME_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "test.folded:1:"));
}

/* Shared prefixes between consecutive lines take a fast path; the tree
 * must be the same as when the lines come in any other order. */
static void
test_prefix_reuse (void)
{
  const char *sorted =
    "a;b 1\na;b;c 2\na;bc 3\na;bc;d 4\na;b;c 5\nab;c 6\na 7\na;b;c;d;e 8\na;b;c;d 9\n";
  const char *shuffled =
    "a;b;c;d 9\nab;c 6\na;bc;d 4\na;b 1\na 7\na;b;c 5\na;bc 3\na;b;c;d;e 8\na;b;c 2\n";
  g_autoptr(FlameProfile) p = load_text (sorted, -1, NULL);
  g_autoptr(FlameProfile) q = load_text (shuffled, -1, NULL);
  static const struct { const char *name; gdouble self, total; } want[] = {
    { "a", 7, 39 }, { "b", 1, 25 }, { "c", 13, 30 }, { "bc", 3, 7 },
    { "d", 13, 21 }, { "e", 8, 8 }, { "ab", 0, 6 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      assert_frame (p, want[i].name, want[i].self, want[i].total);
      assert_frame (q, want[i].name, want[i].self, want[i].total);
    }
  g_assert_cmpuint (flame_profile_get_tree (p)->n_nodes, ==, flame_profile_get_tree (q)->n_nodes);
}

/* The loader looks frames and nodes up in passes (all names of a line,
 * then all nodes), which must build exactly the tree that adding one
 * frame at a time builds: same frame ids, same node numbers, same
 * sibling order. Random stacks in random order, some repeated, some
 * sharing prefixes with the line before. */
static void
test_same_tree_as_one_by_one (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260101);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) prev = g_string_new (NULL);
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(FlameProfile) loaded = NULL;
  g_autoptr(FlameProfile) built = NULL;
  g_auto(GStrv) lines = NULL;
  FlameTree *a, *b;
  FlameFrames *fa, *fb;

  for (guint i = 0; i < 3000; i++)
    {
      g_autoptr(GString) stack = g_string_new (NULL);
      guint depth = g_rand_int_range (rand, 1, 40);

      if (prev->len > 0 && g_rand_boolean (rand))
        {
          /* the previous line, cut after a ';' or repeated whole */
          const char *cut = prev->str + g_rand_int_range (rand, 0, prev->len);
          while (*cut != '\0' && *cut != ';')
            cut++;
          g_string_append_len (stack, prev->str, cut - prev->str);
          if (*cut == '\0')
            depth = 0;
        }
      for (guint d = 0; d < depth; d++)
        {
          guint f = g_rand_int_range (rand, 0, d < 3 ? 4 : 400);
          g_string_append_printf (stack, "%sfn_%u%s", stack->len > 0 ? ";" : "",
                                  f, f % 7 == 0 ? "_with_a_longer_name::inner" : "");
        }
      g_string_append_printf (text, "%s %d\n", stack->str, g_rand_int_range (rand, 1, 100));
      g_string_assign (prev, stack->str);
    }

  loaded = load_text (text->str, text->len, NULL);
  g_assert_nonnull (loaded);

  built = flame_profile_new (FLAME_FORMAT_FOLDED, 1);
  lines = g_strsplit (text->str, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      char *count = strrchr (lines[i], ' ');
      g_auto(GStrv) names = NULL;

      *count++ = '\0';
      names = g_strsplit (lines[i], ";", -1);
      g_array_set_size (ids, 0);
      for (guint k = 0; names[k] != NULL; k++)
        {
          guint32 id = flame_profile_intern_frame (built, names[k], strlen (names[k]),
                                                   NULL, 0, 0, 0);
          g_array_append_val (ids, id);
        }
      flame_profile_add_stack (built, 0, (const guint32 *) ids->data, ids->len,
                               g_ascii_strtod (count, NULL));
    }
  flame_profile_finish (built);
  flame_profile_ensure_totals (loaded);
  flame_profile_ensure_totals (built);

  a = flame_profile_get_tree (loaded);
  b = flame_profile_get_tree (built);
  fa = flame_profile_get_frames (loaded);
  fb = flame_profile_get_frames (built);
  g_assert_cmpuint (flame_frames_count (fa), ==, flame_frames_count (fb));
  for (guint f = 0; f < flame_frames_count (fa); f++)
    g_assert_cmpstr (flame_frames_get_name (fa, f), ==, flame_frames_get_name (fb, f));
  g_assert_cmpuint (a->n_nodes, ==, b->n_nodes);
  g_assert_cmpuint (a->n_nodes, >, 10000);
  for (guint32 n = 0; n < a->n_nodes; n++)
    {
      g_assert_cmpuint (a->nodes[n].frame, ==, b->nodes[n].frame);
      g_assert_cmpuint (a->nodes[n].parent, ==, b->nodes[n].parent);
      g_assert_cmpuint (a->nodes[n].first_child, ==, b->nodes[n].first_child);
      g_assert_cmpuint (a->nodes[n].next_sibling, ==, b->nodes[n].next_sibling);
      g_assert_cmpfloat (a->self[0][n], ==, b->self[0][n]);
      g_assert_cmpfloat (a->total[0][n], ==, b->total[0][n]);
    }
}

static int
cmp_u32 (gconstpointer a,
         gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

/* A deep recursion (one frame, 200 000 times) is one chain of nodes. The
 * tree index hashes each node's path; if every level hashed the same way,
 * the chain's hashes would run into a short cycle and its nodes would
 * share a few slots, every lookup probing through them. They must be
 * nearly all distinct (a few 32-bit collisions are chance). */
static void
test_deep_recursion (void)
{
  const guint depth = 200000;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(FlameProfile) p = NULL;
  g_autofree guint32 *sorted = NULL;
  FlameTree *tree;
  guint dups = 0;

  for (guint d = 0; d < depth; d++)
    g_string_append (text, d == 0 ? "rec" : ";rec");
  g_string_append (text, " 1\nrec;rec 2\n");
  p = load_text (text->str, text->len, NULL);
  g_assert_nonnull (p);
  tree = flame_profile_get_tree (p);
  g_assert_cmpuint (tree->n_nodes, ==, depth + 1);
  g_assert_cmpfloat (tree->total[0][FLAME_TREE_ROOT], ==, 3);

  /* the path hashes, parents first (a child's index is larger) */
  sorted = g_new (guint32, tree->n_nodes);
  sorted[FLAME_TREE_ROOT] = FLAME_TREE_ROOT_HASH;
  for (guint32 n = 1; n < tree->n_nodes; n++)
    sorted[n] = flame_tree_path_hash (sorted[tree->nodes[n].parent], tree->nodes[n].frame,
                                      tree->nodes[n].depth);
  qsort (sorted, tree->n_nodes, sizeof (guint32), cmp_u32);
  for (guint i = 1; i < tree->n_nodes; i++)
    dups += sorted[i] == sorted[i - 1];
  g_assert_cmpuint (dups, <, 100);
}

/* speedscope's own snapshot tests (bg-flamegraph.test.ts.snap) list
 * every frame's self and total weight for each stackcollapse sample;
 * ours must agree. The snapshot is parsed, not transcribed. */
static void
test_speedscope_snapshots (void)
{
  g_autofree char *snap_path = flame_test_corpus_path (
    "speedscope/src/import/__snapshots__/bg-flamegraph.test.ts.snap");
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) selfs = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_autoptr(GArray) totals = g_array_new (FALSE, FALSE, sizeof (gdouble));
  guint n_files = 0;

  if (snap_path == NULL)
    return;
  g_assert_true (g_file_get_contents (snap_path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *l = lines[i];

      if (g_str_has_prefix (l, "      \"name\": \""))
        g_ptr_array_add (names, g_strndup (l + 15, strlen (l + 15) - 2));
      else if (g_str_has_prefix (l, "      \"selfWeight\": "))
        {
          gdouble v = g_ascii_strtod (l + 20, NULL);
          g_array_append_val (selfs, v);
        }
      else if (g_str_has_prefix (l, "      \"totalWeight\": "))
        {
          gdouble v = g_ascii_strtod (l + 21, NULL);
          g_array_append_val (totals, v);
        }
      else if (g_str_has_prefix (l, "  \"name\": \""))
        {
          g_autofree char *file = g_strndup (l + 11, strlen (l + 11) - 2);
          g_autofree char *rel = g_build_filename ("speedscope/sample/profiles/stackcollapse", file,
                                                   NULL);
          g_autofree char *path = flame_test_corpus_path (rel);
          g_autoptr(GError) error = NULL;
          g_autoptr(FlameProfile) p = NULL;

          g_assert_nonnull (path);
          p = flame_load_file (path, NULL, NULL, NULL, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (names->len, >, 0);
          g_assert_cmpuint (names->len, ==, selfs->len);
          g_assert_cmpuint (names->len, ==, totals->len);
          for (guint f = 0; f < names->len; f++)
            assert_frame (p, g_ptr_array_index (names, f),
                          g_array_index (selfs, gdouble, f),
                          g_array_index (totals, gdouble, f));
          g_test_message ("%s: %u frames agree with speedscope", file, names->len);
          g_ptr_array_set_size (names, 0);
          g_array_set_size (selfs, 0);
          g_array_set_size (totals, 0);
          n_files++;
        }
    }
  g_assert_cmpuint (n_files, ==, 5);
}

static void
test_corpus_files (void)
{
  static const struct { const char *path; gdouble samples; guint warnings; } files[] = {
    /* fractions kept, not truncated as inferno does */
    { "inferno/tests/data/flamegraph/fractional-samples/fractional.txt", 0, 0 },
    { "inferno/tests/data/flamegraph/fractional-samples/zero-fractionals.txt", 333, 0 },
    { "inferno/tests/data/flamegraph/fractional-samples/tricky-stack.txt", 0, 0 },
    { "inferno/tests/data/flamegraph/bad-lines/bad-lines.txt", 607, 1 },
    { "inferno/tests/data/flamegraph/grey-frames/grey-frames.txt", 0, 0 },
    { "inferno/tests/data/flamegraph/base/flames.txt", 0, 0 },
    { "profiler/src/test/fixtures/upgrades/flamegraph.txt", 0, 0 },
    { "inferno/tests/data/diff-folded/before_fractionals.txt", 0, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = flame_test_corpus_path (files[i].path);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = NULL;

      if (path == NULL)
        return;
      p = flame_load_file (path, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (flame_profile_get_samples (p, 0), >, 0);
      if (files[i].samples > 0)
        g_assert_cmpfloat_with_epsilon (flame_profile_get_samples (p, 0), files[i].samples, 1e-9);
      g_assert_cmpuint (flame_profile_get_warnings (p)->len, ==, files[i].warnings);
    }

  /* fractional.txt: the sum of its counts, as written */
  {
    g_autofree char *path = flame_test_corpus_path (
      "inferno/tests/data/flamegraph/fractional-samples/fractional.txt");
    g_autofree char *contents = NULL;
    g_auto(GStrv) lines = NULL;
    g_autoptr(FlameProfile) p = NULL;
    gdouble sum = 0;

    if (path == NULL)
      return;
    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    lines = g_strsplit (contents, "\n", -1);
    for (guint i = 0; lines[i] != NULL; i++)
      {
        const char *sp = strrchr (lines[i], ' ');
        if (sp != NULL)
          sum += g_ascii_strtod (sp + 1, NULL);
      }
    p = flame_load_file (path, NULL, NULL, NULL, NULL);
    g_assert_cmpfloat_with_epsilon (flame_profile_get_samples (p, 0), sum, 1e-9);
    g_assert_cmpfloat (sum, !=, (gdouble) (gint64) sum);
  }
}

static void
test_sniff_negative (void)
{
  const char *files[] = {
    "inferno/tests/data/collapse-guess/unknown-format.txt",
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = flame_test_corpus_path (files[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) p = NULL;

      if (path == NULL)
        return;
      p = flame_load_file (path, NULL, NULL, NULL, &error);
      g_assert_null (p);
      g_assert_error (error, FLAME_ERROR, FLAME_ERROR_UNKNOWN_FORMAT);
    }
}

static void
test_cancel (void)
{
  g_autoptr(GString) s = g_string_new (NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = NULL;

  for (guint i = 0; i < 200000; i++)
    g_string_append_printf (s, "main;f%u;g 1\n", i % 1000);
  bytes = g_bytes_new (s->str, s->len);
  g_cancellable_cancel (cancellable);
  p = flame_load_bytes ("big.folded", bytes, cancellable, NULL, NULL, &error);
  g_assert_null (p);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

typedef struct
{
  GMainLoop    *loop;
  FlameProfile *profile;
  GError       *error;
} AsyncData;

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  AsyncData *data = user_data;

  data->profile = flame_load_file_finish (result, &data->error);
  g_main_loop_quit (data->loop);
}

static void
test_async (void)
{
  const char *dir = g_getenv ("FLAMEDIFF_EXAMPLES");
  g_autofree char *path = g_build_filename (dir ? dir : "data/examples", "baseline.folded", NULL);
  AsyncData data = { g_main_loop_new (NULL, FALSE) };

  flame_load_file_async (path, NULL, NULL, NULL, loaded_cb, &data);
  g_main_loop_run (data.loop);
  g_assert_no_error (data.error);
  g_assert_nonnull (data.profile);
  g_assert_cmpfloat (flame_profile_get_samples (data.profile, 0), ==, 1055);
  g_object_unref (data.profile);
  g_main_loop_unref (data.loop);
}

/* Rust legacy names as stackcollapse-perf.pl leaves them (half
 * demangled, with the build's hash) get the names the perf script loader
 * gives the same symbols: the folded file and the perf script it came
 * from agree. */
static void
test_rust_names (void)
{
  static const char text[] =
    "app;app::main::h5a5a5a5a5a5a5a5a;core::str::Split$LT$$u27$a$C$$u20$P$GT$::next::h0123456789abcdef 3\n"
    "app;app::main::h5a5a5a5a5a5a5a5a;gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f 2\n"
    "app;app::main 1\n"
    "app;not::rust::hxyz 1\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) p = load_text (text, -1, &error);
  gdouble self_w, total_w;

  g_assert_no_error (error);
  frame_weights (p, 0, "core::str::Split<'a, P>::next", &self_w, &total_w);
  g_assert_cmpfloat (self_w, ==, 3);
  frame_weights (p, 0, "gc::gc::GcBox<T>::new::_{{closure}}", &self_w, &total_w);
  g_assert_cmpfloat (self_w, ==, 2);
  /* one function, with and without the hash */
  frame_weights (p, 0, "app::main", &self_w, &total_w);
  g_assert_cmpfloat (self_w, ==, 1);
  g_assert_cmpfloat (total_w, ==, 6);
  frame_weights (p, 0, "not::rust::hxyz", &self_w, &total_w);
  g_assert_cmpfloat (self_w, ==, 1);
}

/* @text loaded by @n_threads threads handing on @chunk_words at a time
 * (flame_folded_load_threads()). */
static FlameProfile *
load_threads (const GString  *text,
              guint           n_threads,
              gsize           chunk_words,
              GError        **error)
{
  FlameInput in = { "test.folded", text->str, text->len, NULL, NULL, NULL, 0 };

  return flame_folded_load_threads (&in, n_threads, chunk_words, error);
}

/* The same profile, node for node, frame for frame. */
static void
assert_same_profile (FlameProfile *a,
                     FlameProfile *b)
{
  FlameTree *ta = flame_profile_get_tree (a), *tb = flame_profile_get_tree (b);
  FlameFrames *fa = flame_profile_get_frames (a), *fb = flame_profile_get_frames (b);
  GPtrArray *wa = flame_profile_get_warnings (a), *wb = flame_profile_get_warnings (b);
  guint n_columns = flame_profile_get_n_columns (a);

  flame_profile_ensure_totals (a);
  flame_profile_ensure_totals (b);
  g_assert_cmpint (flame_profile_get_format (a), ==, flame_profile_get_format (b));
  g_assert_cmpuint (n_columns, ==, flame_profile_get_n_columns (b));
  g_assert_cmpint (flame_profile_get_unit (a), ==, flame_profile_get_unit (b));
  g_assert_cmpuint (flame_frames_count (fa), ==, flame_frames_count (fb));
  for (guint f = 0; f < flame_frames_count (fa); f++)
    g_assert_cmpstr (flame_frames_get_name (fa, f), ==, flame_frames_get_name (fb, f));
  g_assert_cmpuint (ta->n_nodes, ==, tb->n_nodes);
  for (guint32 n = 0; n < ta->n_nodes; n++)
    {
      g_assert_cmpuint (ta->nodes[n].frame, ==, tb->nodes[n].frame);
      g_assert_cmpuint (ta->nodes[n].parent, ==, tb->nodes[n].parent);
      g_assert_cmpuint (ta->nodes[n].first_child, ==, tb->nodes[n].first_child);
      g_assert_cmpuint (ta->nodes[n].next_sibling, ==, tb->nodes[n].next_sibling);
      g_assert_cmpuint (ta->nodes[n].depth, ==, tb->nodes[n].depth);
      for (guint c = 0; c < n_columns; c++)
        {
          g_assert_cmpfloat (ta->self[c][n], ==, tb->self[c][n]);
          g_assert_cmpfloat (ta->total[c][n], ==, tb->total[c][n]);
        }
    }
  for (guint c = 0; c < n_columns; c++)
    g_assert_cmpfloat (flame_profile_get_samples (a, c), ==, flame_profile_get_samples (b, c));
  g_assert_cmpuint (wa->len, ==, wb->len);
  for (guint i = 0; i < wa->len; i++)
    g_assert_cmpstr (g_ptr_array_index (wa, i), ==, g_ptr_array_index (wb, i));
}

/* Random stacks sharing random prefixes, some lines ending in CRLF, a
 * few comments and bad lines, the last line without its newline; in the
 * 3-column pair form when @pair, under a header when @header. */
static void
random_folded_text (GString  *text,
                    guint     seed,
                    guint     n_lines,
                    gboolean  pair,
                    gboolean  header)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(GString) prev = g_string_new (NULL);

  g_string_truncate (text, 0);
  if (header)
    g_string_append (text, "# flamediff-folded unit=ms samples=500,600 interval_ms=2\n");
  for (guint i = 0; i < n_lines; i++)
    {
      g_autoptr(GString) stack = g_string_new (NULL);
      guint depth = g_rand_int_range (rand, 1, 12);

      if (g_rand_int_range (rand, 0, 40) == 0)
        {
          g_string_append (text, g_rand_boolean (rand) ? "# a comment\n" : "not a stack line\n");
          continue;
        }
      if (prev->len > 0 && g_rand_boolean (rand))
        {
          const char *cut = prev->str + g_rand_int_range (rand, 0, prev->len);
          while (*cut != '\0' && *cut != ';')
            cut++;
          g_string_append_len (stack, prev->str, cut - prev->str);
          if (*cut == '\0')
            depth = 0;
        }
      for (guint d = 0; d < depth; d++)
        g_string_append_printf (stack, "%sfn_%u", stack->len > 0 ? ";" : "",
                                g_rand_int_range (rand, 0, d < 2 ? 3 : 60));
      g_string_append_printf (text, "%s %d", stack->str, g_rand_int_range (rand, 0, 100));
      if (pair)
        g_string_append_printf (text, " %d.5", g_rand_int_range (rand, 0, 100));
      if (i + 1 < n_lines)
        g_string_append (text, g_rand_int_range (rand, 0, 3) == 0 ? "\r\n" : "\n");
      g_string_assign (prev, stack->str);
    }
}

/* A file loaded by two threads (one reading the lines, one building the
 * tree) gives the profile one thread gives: the same nodes in the same
 * order, frames, weights, samples, warnings; wherever the chunks the
 * reader hands on end (down to a line or two per chunk: lines at every
 * chunk boundary), with CRLF, a last line without '\n', the pair form
 * and a header. */
static void
test_threads (void)
{
  static const gsize chunks[] = { 8, 9, 13, 64, 1000, 0 };
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint variant = 0; variant < 4; variant++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlameProfile) one = NULL;

      random_folded_text (text, 17 + variant, 4000, variant & 1, variant == 2);
      one = load_threads (text, 1, 0, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (flame_profile_get_tree (one)->n_nodes, >, 1000);
      for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
        for (guint n = 1; n <= 2; n++)
          {
            g_autoptr(FlameProfile) other = load_threads (text, n, chunks[i], &error);

            g_assert_no_error (error);
            assert_same_profile (one, other);
          }
    }
}

/* An error names the same line with two threads as with one. */
static void
test_threads_errors (void)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) late = g_string_new (NULL);
  g_autoptr(GError) one = NULL;
  g_autoptr(GError) two = NULL;
  g_autoptr(FlameProfile) p = NULL;
  g_autoptr(FlameProfile) a = NULL;
  g_autoptr(FlameProfile) b = NULL;
  g_autofree char *name = g_strnfill (64 * 1024 + 1, 'x');

  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (text, "main;f%u;g %u\n", i % 37, i);
  g_string_append_printf (text, "main;%s 1\n", name);
  for (guint i = 0; i < 500; i++)
    g_string_append_printf (text, "main;h%u 1\n", i);

  p = load_threads (text, 1, 0, &one);
  g_assert_null (p);
  g_assert_error (one, FLAME_ERROR, FLAME_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (one->message, "test.folded:3001:"));
  p = load_threads (text, 2, 16, &two);
  g_assert_null (p);
  g_assert_error (two, FLAME_ERROR, FLAME_ERROR_TOO_LARGE);
  g_assert_cmpstr (one->message, ==, two->message);

  /* a bad line near the end: the warning names its line */
  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (late, "main;f%u;g %u\n", i % 37, i);
  g_string_append (late, "main;bad line\nmain;h 1\n");
  a = load_threads (late, 1, 0, NULL);
  b = load_threads (late, 2, 16, NULL);
  assert_same_profile (a, b);
  g_assert_cmpuint (flame_profile_get_warnings (b)->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (flame_profile_get_warnings (b), 0),
                            "first at line 3001"));
}

/* A loaded profile has its root's totals at once and the other nodes'
 * on demand: the same as a full sweep, the root's left as they were,
 * and per-function weights refused until then. */
static void
test_lazy_totals (void)
{
  const char *text = "a;b;c 3\na;b 2\na;d 0.25\ne;a;b 0.5\nf 1\n";
  g_autoptr(FlameProfile) p = load_text (text, -1, NULL);
  FlameTree *tree;
  g_autofree gdouble *want = NULL;
  gdouble root;
  guint n_frames;
  g_autofree gdouble *s = NULL;
  g_autofree gdouble *t = NULL;

  g_assert_nonnull (p);
  tree = flame_profile_get_tree (p);
  g_assert_true (tree->totals_pending);
  root = tree->total[0][FLAME_TREE_ROOT];
  g_assert_cmpfloat (root, ==, 6.75);
  g_assert_cmpfloat (flame_profile_get_total_weight (p, 0), ==, 6.75);

  n_frames = flame_frames_count (flame_profile_get_frames (p));
  s = g_new0 (gdouble, n_frames);
  t = g_new0 (gdouble, n_frames);
  if (g_test_undefined ())
    {
      g_test_expect_message ("Flamediff", G_LOG_LEVEL_CRITICAL, "*totals_pending*");
      flame_tree_function_weights (tree, n_frames, 0, s, t);
      g_test_assert_expected_messages ();
    }

  /* every node's total by hand: its self plus its children's */
  want = g_new0 (gdouble, tree->n_nodes);
  for (guint32 n = 1; n < tree->n_nodes; n++)
    for (guint32 up = n; up != FLAME_TREE_ROOT; up = tree->nodes[up].parent)
      want[up] += tree->self[0][n];
  flame_profile_ensure_totals (p);
  g_assert_false (tree->totals_pending);
  for (guint32 n = 1; n < tree->n_nodes; n++)
    g_assert_cmpfloat_with_epsilon (tree->total[0][n], want[n], 1e-12);
  g_assert_cmpfloat (tree->total[0][FLAME_TREE_ROOT], ==, root);
  /* twice is once */
  flame_profile_ensure_totals (p);
  g_assert_cmpfloat (tree->total[0][FLAME_TREE_ROOT], ==, root);
  assert_frame (p, "a", 0, 5.75);
  assert_frame (p, "b", 2.5, 5.5);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/folded/basic", test_basic);
  g_test_add_func ("/folded/function-weights-columns", test_function_weights_columns);
  g_test_add_func ("/folded/lazy-totals", test_lazy_totals);
  g_test_add_func ("/folded/tree-expect-nodes", test_tree_expect_nodes);
  g_test_add_func ("/folded/fill-large", test_fill_large);
  g_test_add_func ("/folded/parallel-for", test_parallel_for);
  g_test_add_func ("/folded/parallel-text", test_parallel_text);
  g_test_add_func ("/folded/function-weights-large", test_function_weights_large);
  g_test_add_func ("/folded/background-nice", test_background_nice);
  g_test_add_func ("/folded/quirks", test_quirks);
  g_test_add_func ("/folded/rust-names", test_rust_names);
  g_test_add_func ("/folded/bad-lines", test_bad_lines);
  g_test_add_func ("/folded/no-valid-line", test_no_valid_line);
  g_test_add_func ("/folded/pair", test_pair);
  g_test_add_func ("/folded/gzip-utf16", test_gzip_utf16);
  g_test_add_func ("/folded/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/folded/limits", test_limits);
  g_test_add_func ("/folded/prefix-reuse", test_prefix_reuse);
  g_test_add_func ("/folded/same-tree-as-one-by-one", test_same_tree_as_one_by_one);
  g_test_add_func ("/folded/deep-recursion", test_deep_recursion);
  g_test_add_func ("/folded/threads", test_threads);
  g_test_add_func ("/folded/threads-errors", test_threads_errors);
  g_test_add_func ("/folded/speedscope-snapshots", test_speedscope_snapshots);
  g_test_add_func ("/folded/corpus", test_corpus_files);
  g_test_add_func ("/folded/sniff-negative", test_sniff_negative);
  g_test_add_func ("/folded/not-profiles", test_not_profiles);
  g_test_add_func ("/folded/sniff-cost-lines", test_sniff_cost_lines);
  g_test_add_func ("/folded/cancel", test_cancel);
  g_test_add_func ("/folded/async", test_async);

  return g_test_run ();
}
