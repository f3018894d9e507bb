/* flame-recorder-profile.c: the profile made of a recording's records.
 * Each process image's samples symbolised (native frames with libdwfl,
 * Python frames from the code objects the sampler sent, JIT frames from
 * perf maps), memory mode's sampled allocations weighed into allocated,
 * peak and leaked bytes, the metadata of the run, and the speedscope
 * JSON written atomically.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flame-perfmap.h"
#include "flame-recorder-private.h"
#include "flame-speedscope.h"

/* ---- the profile ---- */

static char *
describe_status (int status)
{
  if (WIFEXITED (status))
    return g_strdup_printf ("exited with status %d", WEXITSTATUS (status));
  if (WIFSIGNALED (status))
    return g_strdup_printf ("killed by signal %d (%s)%s", WTERMSIG (status),
                            g_strsignal (WTERMSIG (status)),
                            WCOREDUMP (status) ? ", core dumped" : "");
  return g_strdup_printf ("wait status %d", status);
}

static char *
hex (GBytes *bytes)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  GString *s = g_string_sized_new (len * 2);

  for (gsize i = 0; i < len; i++)
    g_string_append_printf (s, "%02x", data[i]);
  return g_string_free (s, FALSE);
}

static guint32
intern (FlameProfile *profile,
        const char   *name,
        const char   *file,
        guint         line,
        guint32       flags)
{
  return flame_profile_intern_frame (profile, name, strlen (name), file,
                                     file != NULL ? strlen (file) : 0, line, flags);
}

/* the native frame the run of Python frames starting at @from replaces,
 * as the sampler found it; -1: not found */
static int
run_native (const guint8 *frames,
            guint         from,
            guint         n)
{
  for (; from < n; from++)
    {
      guint64 f;

      memcpy (&f, frames + from * 8, sizeof f);
      if (FLAME_PY_FRAME_ENTRY (f))
        return FLAME_PY_FRAME_NATIVE (f);
    }
  return -1;
}

/* Python frames @from… of a sample, leaf first: one run (up to the
 * frame marked as an entry), or all of them; returns where it stopped */
static guint
append_python (FlameProfile  *profile,
               FlamePyCodes  *codes,
               const guint8  *frames,
               guint          from,
               guint          n,
               gboolean       all,
               gboolean       lines,
               guint32        unknown,
               GArray        *stack)
{
  while (from < n)
    {
      guint64 f;
      const FlamePyCode *code;
      guint32 id;

      memcpy (&f, frames + from * 8, sizeof f);
      from++;
      code = flame_py_codes_lookup (codes, FLAME_PY_FRAME_ID (f));
      if (code == NULL)
        id = unknown;
      else
        {
          /* a function is one frame (its first line), unless asked for
           * one frame per line running */
          guint line = lines ? flame_py_codes_line (codes, FLAME_PY_FRAME_ID (f),
                                                    FLAME_PY_FRAME_LASTI (f)) : 0;

          id = intern (profile, code->name, code->file, line != 0 ? line : code->first_line, 0);
        }
      g_array_append_val (stack, id);
      if (FLAME_PY_FRAME_ENTRY (f) && !all)
        break;
    }
  return from;
}

/* A perf map's name as a frame. node's ("JS:*hot /app/x.js:12:5") are
 * the function, its file and line: the tier mark after "JS:" (~
 * interpreted, ^ baseline, + Maglev, * TurboFan) is dropped, so that a
 * function is one frame whichever tier ran it. Others as they are. */
static guint32
intern_jit (FlameProfile *profile,
            const char   *name)
{
  const char *space, *colon, *p;
  g_autofree char *fn = NULL;
  g_autofree char *file = NULL;
  guint64 line = 0;

  if (!g_str_has_prefix (name, "JS:"))
    return intern (profile, name, NULL, 0, FLAME_FRAME_JIT);
  p = name + 3;
  if (*p != '\0' && strchr ("~^+*", *p) != NULL)
    p++;
  space = strrchr (p, ' ');
  if (space == NULL)
    return intern (profile, *p ? p : "(anonymous)", NULL, 0, FLAME_FRAME_JIT);
  fn = space > p ? g_strndup (p, space - p) : g_strdup ("(anonymous)");
  /* FILE:LINE:COLUMN */
  colon = strrchr (space + 1, ':');
  if (colon != NULL && colon > space + 1)
    {
      const char *c2 = colon;

      while (--c2 > space && *c2 != ':')
        ;
      if (c2 > space + 1)
        {
          file = g_strndup (space + 1, c2 - space - 1);
          line = g_ascii_strtoull (c2 + 1, NULL, 10);
        }
    }
  if (file == NULL)
    file = g_strdup (space + 1);
  return intern (profile, fn, file, (guint) MIN (line, G_MAXUINT), FLAME_FRAME_JIT);
}

/* The perf map the process (or a runtime in it) wrote during the
 * recording: /tmp/perf-PID.map, not older than the recording. Node's,
 * which exist because the recorder asked for them, are removed once
 * read. */
static FlamePerfMap *
load_perf_map (FlameRecorder *self,
               Image         *img)
{
  g_autofree char *path = g_strdup_printf ("/tmp/perf-%d.map", img->pid);
  g_autofree char *base = img->exe != NULL ? g_path_get_basename (img->exe) : NULL;
  FlamePerfMap *map;
  GStatBuf st;

  if (self->host_sampler != NULL || g_stat (path, &st) != 0 ||
      (gint64) st.st_mtime < self->start_wall_s - 1)
    return NULL;
  map = flame_perf_map_load (path);
  if (map != NULL)
    {
      g_autofree char *runtime = g_strdup_printf ("%s (JIT perf map)", base != NULL ? base : "?");
      gboolean seen = FALSE;

      for (guint i = 0; i < self->runtimes->len && !seen; i++)
        seen = strcmp (g_ptr_array_index (self->runtimes, i), runtime) == 0;
      if (!seen)
        g_ptr_array_add (self->runtimes, g_steal_pointer (&runtime));
    }
  if (map != NULL)
    g_ptr_array_add (self->jit_maps, g_strdup_printf ("%s[%d]: %s (%u functions)",
                                                      img->comm != NULL ? img->comm : "?",
                                                      img->pid, path, flame_perf_map_count (map)));
  if (base != NULL && (strcmp (base, "node") == 0 || strcmp (base, "nodejs") == 0))
    g_unlink (path);
  return map;
}

/* the epoch's symbolizer, made the first time */
static Epoch *
epoch_symbolizer (FlameRecorder *self,
                  FlameSymCache *cache,
                  Image         *img,
                  guint32        epoch_index)
{
  Epoch *epoch = g_ptr_array_index (img->epochs, MIN (epoch_index, img->epochs->len - 1));

  if (epoch->sym == NULL)
    {
      epoch->sym = flame_symbolizer_new_shared (cache);
      if (self->host_root != NULL)
        flame_symbolizer_set_root (epoch->sym, self->host_root);
      for (guint i = 0; i < epoch->modules->len; i++)
        {
          Module *m = &g_array_index (epoch->modules, Module, i);
          gsize id_len = 0;
          const guint8 *id = m->build_id != NULL ? g_bytes_get_data (m->build_id, &id_len) : NULL;

          flame_symbolizer_add_module (epoch->sym, m->path, m->base, id, id_len);
        }
    }
  return epoch;
}

/* How many runs of Python frames sample @s (its frames at @frames) has
 * that the sampler did not place on a native frame */
static guint
unplaced_runs (const FlameRecSample *s,
               const guint8         *frames)
{
  guint runs = 0;

  for (guint i = 0; i < s->n_py; i++)
    {
      guint64 f;

      memcpy (&f, frames + (s->n_frames + i) * 8, sizeof f);
      runs += FLAME_PY_FRAME_ENTRY (f) && FLAME_PY_FRAME_NATIVE (f) < 0;
    }
  return runs;
}

/* The functions of sample @s that occur @runs times in it score a
 * point; @depth sums where each first appears. Returns the evaluation
 * loop's name when the symbols give it, else NULL. */
static const char *
score_sample (Epoch                *epoch,
              const FlameRecSample *s,
              const guint8         *frames,
              guint                 runs,
              GHashTable           *occ,
              GHashTable           *depth,
              GHashTable           *score)
{
  GHashTableIter iter;
  gpointer key, value;
  guint pos = 0;

  g_hash_table_remove_all (occ);
  for (guint i = 0; i < s->n_frames; i++)
    {
      const FlameSymFrame *sym;
      guint64 ip;
      guint n;

      memcpy (&ip, frames + i * 8, sizeof ip);
      n = flame_symbolizer_lookup (epoch->sym, ip, i == 0, &sym);
      for (guint j = 0; j < n; j++, pos++)
        {
          if (flame_py_is_eval_frame (sym[j].name))
            return sym[j].name;
          if (!g_hash_table_contains (occ, sym[j].name))
            {
              guint d = GPOINTER_TO_UINT (g_hash_table_lookup (depth, sym[j].name));

              /* where it first appears, summed (for the tie-break) */
              g_hash_table_replace (depth, g_strdup (sym[j].name), GUINT_TO_POINTER (d + pos));
            }
          guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (occ, sym[j].name));

          g_hash_table_replace (occ, (gpointer) sym[j].name, GUINT_TO_POINTER (seen + 1));
        }
    }
  g_hash_table_iter_init (&iter, occ);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (value) == runs)
      {
        guint points = GPOINTER_TO_UINT (g_hash_table_lookup (score, key));

        g_hash_table_replace (score, g_strdup (key), GUINT_TO_POINTER (points + 1));
      }
  return NULL;
}

/* The function of the highest score, of those the one nearest the leaf
 * on average; NULL: none */
static char *
best_scored (GHashTable *score,
             GHashTable *depth)
{
  GHashTableIter iter;
  gpointer key, value;
  char *best = NULL;
  guint best_score = 0;
  gdouble best_depth = 0;

  g_hash_table_iter_init (&iter, score);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint sc = GPOINTER_TO_UINT (value);
      gdouble d = GPOINTER_TO_UINT (g_hash_table_lookup (depth, key)) / (gdouble) sc;

      if (sc > best_score || (sc == best_score && d < best_depth))
        {
          best = key;
          best_score = sc;
          best_depth = d;
        }
    }
  return g_strdup (best);
}

/* The name of the evaluation loop's native frames in this image:
 * _PyEval_EvalFrameDefault when the interpreter exports it (3.11, 3.12).
 * Debian's 3.13+ does not, and its frames are named by their unwind
 * entry (python3.13+0x2f7283): then it is the function that occurs, in
 * the most samples, as many times as the sample has runs of Python
 * frames (and of those, the one nearest the leaf). NULL: none. */
static char *
find_eval_frame (FlameRecorder *self,
                 FlameSymCache *cache,
                 Image         *img)
{
  const guint8 *p = img->samples->data;
  const guint8 *end = p != NULL ? p + img->samples->len : NULL;
  g_autoptr(GHashTable) score = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) depth = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) occ = g_hash_table_new (g_str_hash, g_str_equal);

  if (flame_py_codes_is_empty (img->py))
    return NULL;
  while (p < end)
    {
      guint32 epoch_index;
      FlameRecSample s;
      guint runs;

      memcpy (&epoch_index, p, sizeof epoch_index);
      memcpy (&s, p + sizeof epoch_index, sizeof s);
      p += sizeof epoch_index + sizeof s;
      runs = unplaced_runs (&s, p);
      if (runs > 0)
        {
          const char *eval = score_sample (epoch_symbolizer (self, cache, img, epoch_index),
                                           &s, p, runs, occ, depth, score);

          if (eval != NULL)
            return g_strdup (eval);
        }
      p += (s.n_frames + s.n_py) * 8;
    }
  return best_scored (score, depth);
}

/* What add_image_samples() turns one process image's samples into
 * stacks with */
typedef struct
{
  FlameRecorder *self;
  FlameProfile  *profile;
  Image         *img;
  GArray        *stack;        /* guint32 frame ids, leaf first until turned */
  FlamePerfMap  *jit;          /* the process's perf map, or NULL */
  const char    *eval_frame;   /* CPython's evaluation loop, or NULL */
  gboolean       python_only;  /* Python frames only (this process ran Python) */
  guint32        root, truncated, py_truncated, py_unknown, native;
} StackBuilder;

/* Native frame @i of sample @s (frames at @ips, Python frames at @py,
 * *next_py the next of them not placed yet) onto the stack: a run of
 * Python frames where the sampler placed one or the evaluation loop is,
 * a JIT function, or the frames the symbols give (inlined ones too) */
static void
append_native (StackBuilder         *b,
               Epoch                *epoch,
               const FlameRecSample *s,
               const guint8         *ips,
               const guint8         *py,
               guint                *next_py,
               guint                 i)
{
  const FlameSymFrame *frames;
  const char *jit_name;
  gboolean replaced = FALSE;
  guint64 ip;
  guint n;
  int k;

  /* runs the sampler placed: this frame is the evaluation loop */
  while (*next_py < s->n_py && (k = run_native (py, *next_py, s->n_py)) >= 0 && (guint) k <= i)
    {
      *next_py = append_python (b->profile, b->img->py, py, *next_py, s->n_py, FALSE,
                                b->self->python_lines, b->py_unknown, b->stack);
      replaced |= (guint) k == i;
    }
  if (replaced)
    return;
  memcpy (&ip, ips + i * 8, sizeof ip);
  if (b->jit != NULL && (jit_name = flame_perf_map_lookup (b->jit, ip)) != NULL)
    {
      /* JIT-compiled code: in no module, named by the runtime */
      guint32 id = intern_jit (b->profile, jit_name);

      if (!b->python_only)
        g_array_append_val (b->stack, id);
      return;
    }
  n = flame_symbolizer_lookup (epoch->sym, ip, i == 0, &frames);
  for (guint j = 0; j < n; j++)
    {
      guint32 id;

      if (frames[j].own)
        continue;  /* the sampler's thread trampoline */
      if (*next_py < s->n_py && b->eval_frame != NULL && run_native (py, *next_py, s->n_py) < 0 &&
          strcmp (frames[j].name, b->eval_frame) == 0)
        {
          *next_py = append_python (b->profile, b->img->py, py, *next_py, s->n_py, FALSE,
                                    b->self->python_lines, b->py_unknown, b->stack);
          continue;
        }
      if (b->python_only)
        continue;
      id = intern (b->profile, frames[j].name, frames[j].file, frames[j].line,
                   frames[j].inlined ? FLAME_FRAME_INLINED : 0);
      g_array_append_val (b->stack, id);
    }
}

/* The stack of sample @s, whose frames are at @ips, into b->stack, root
 * first. Leaf first from the sampler; each run of Python frames (up to
 * one marked as an entry) takes the place of the next evaluation-loop
 * frame of the native stack; what is left over (the native stack ended
 * early) goes at its root end. */
static void
build_stack (StackBuilder         *b,
             Epoch                *epoch,
             const FlameRecSample *s,
             const guint8         *ips)
{
  const guint8 *py = ips + s->n_frames * 8;
  GArray *stack = b->stack;
  guint next_py = 0;

  g_array_set_size (stack, 0);
  for (guint i = 0; i < s->n_frames; i++)
    append_native (b, epoch, s, ips, py, &next_py, i);
  append_python (b->profile, b->img->py, py, next_py, s->n_py, TRUE, b->self->python_lines,
                 b->py_unknown, stack);
  if (s->h.flags & FLAME_SAMPLE_PY_TRUNCATED)
    g_array_append_val (stack, b->py_truncated);
  if ((s->h.flags & FLAME_SAMPLE_TRUNCATED) && !b->python_only)
    g_array_append_val (stack, b->truncated);
  if (b->python_only && stack->len == 0)
    g_array_append_val (stack, b->native);
  g_array_append_val (stack, b->root);
  for (guint i = 0; i < stack->len / 2; i++)
    {
      guint32 t = g_array_index (stack, guint32, i);

      g_array_index (stack, guint32, i) = g_array_index (stack, guint32, stack->len - 1 - i);
      g_array_index (stack, guint32, stack->len - 1 - i) = t;
    }
}

/* The sample's thread, counted */
static void
count_thread_sample (FlameProfile *profile,
                     GHashTable   *threads,
                     const char   *name,
                     int           pid,
                     int           tid)
{
  FlameThread *thread = g_hash_table_lookup (threads, GINT_TO_POINTER (tid));

  if (thread == NULL)
    {
      thread = flame_profile_ensure_thread (profile, name, pid, tid);
      g_hash_table_insert (threads, GINT_TO_POINTER (tid), thread);
    }
  thread->samples += 1;
}

static void
add_image_samples (FlameRecorder *self,
                   FlameProfile  *profile,
                   FlameSymCache *cache,
                   Image         *img,
                   GArray        *stack,
                   gdouble        period_ns,
                   const gdouble *mem_weights,
                   gdouble       *total_weight)
{
  guint64 index = 0;
  const guint8 *p = img->samples->data;
  /* no samples: no data either, and NULL + 0 is undefined */
  const guint8 *end = p != NULL ? p + img->samples->len : NULL;
  const char *name = img->comm != NULL && *img->comm ? img->comm : "[process]";
  GHashTable *threads = g_hash_table_new (NULL, NULL);
  g_autoptr(FlamePerfMap) jit = NULL;
  g_autofree char *eval_frame = NULL;
  StackBuilder b = { .self = self, .profile = profile, .img = img, .stack = stack };

  /* one statement each: the frames' order in the file is theirs */
  b.root = intern (profile, name, NULL, 0, FLAME_FRAME_THREAD);
  b.truncated = intern (profile, "[truncated]", NULL, 0, 0);
  b.py_truncated = intern (profile, "[truncated Python stack]", NULL, 0, 0);
  b.py_unknown = intern (profile, "[unknown Python code]", NULL, 0, 0);
  /* Python frames only: in the processes that ran Python code */
  b.python_only = self->python_only && !flame_py_codes_is_empty (img->py);
  b.native = intern (profile, "[native code]", NULL, 0, 0);
  b.jit = jit = load_perf_map (self, img);
  b.eval_frame = eval_frame = find_eval_frame (self, cache, img);

  while (p < end)
    {
      guint32 epoch_index;
      FlameRecSample s;

      memcpy (&epoch_index, p, sizeof epoch_index);
      memcpy (&s, p + sizeof epoch_index, sizeof s);
      p += sizeof epoch_index + sizeof s;
      build_stack (&b, epoch_symbolizer (self, cache, img, epoch_index), &s, p);
      p += (s.n_frames + s.n_py) * 8;
      if (mem_weights != NULL)
        {
          for (guint c = 0; c < FLAME_RECORDER_N_METRICS; c++)
            if (mem_weights[index * FLAME_RECORDER_N_METRICS + c] > 0)
              flame_profile_add_stack (profile, c, (guint32 *) stack->data, stack->len,
                                       mem_weights[index * FLAME_RECORDER_N_METRICS + c]);
        }
      else
        flame_profile_add_stack (profile, 0, (guint32 *) stack->data, stack->len,
                                 s.weight * period_ns);
      index++;
      *total_weight += s.weight;
      count_thread_sample (profile, threads, name, img->pid, s.h.tid);
    }
  g_hash_table_unref (threads);
  /* the exact totals of a process none of whose allocations was sampled
   * (or whose peak no sampled block was part of): under its name, so
   * that the graph sums to the totals the report gives */
  if (mem_weights != NULL)
    {
      const gdouble *rest = mem_weights + img->n_samples * FLAME_RECORDER_N_METRICS;
      guint32 unsampled[2] = { b.root, 0 };
      gboolean interned = FALSE;

      for (guint c = 0; c < FLAME_RECORDER_N_METRICS; c++)
        if (rest[c] > 0)
          {
            if (!interned)
              unsampled[1] = intern (profile, "[unsampled allocations]", NULL, 0, 0);
            interned = TRUE;
            flame_profile_add_stack (profile, c, unsampled, 2, rest[c]);
          }
    }

  /* the files stay open in @cache for the next processes */
  for (guint e = 0; e < img->epochs->len; e++)
    g_clear_pointer (&((Epoch *) g_ptr_array_index (img->epochs, e))->sym, flame_symbolizer_free);
}

static const char *const metric_names[FLAME_RECORDER_N_METRICS] = {
  "allocated", "allocations", "peak", "leaked",
};
static const FlameUnit metric_units[FLAME_RECORDER_N_METRICS] = {
  FLAME_UNIT_BYTES, FLAME_UNIT_COUNT, FLAME_UNIT_BYTES, FLAME_UNIT_BYTES,
};

static gint
compare_mem_events (gconstpointer a,
                    gconstpointer b)
{
  const MemEvent *x = a, *y = b;

  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct
{
  gdouble allocated, allocations, peak, leaked;  /* exact when the process said */
  guint peak_processes;  /* how many processes' own peaks @peak adds up */
  gboolean exact;
} MemTotals;

/* Scales the column of @n samples to @want. When no sample has any of
 * it (the process allocated too little to be sampled, or no sampled
 * block was live at its peak), @want goes to row @n, the process's
 * unsampled row (add_image_samples): the graph's columns keep summing to
 * the exact totals. When the exact total is nothing (a forked child
 * that freed more of what it inherited than it kept of its own), its
 * sampled blocks stand for nothing either. */
static void
scale_column (gdouble *w,
              guint64  n,
              guint    column,
              gdouble  want)
{
  gdouble sum = 0;

  for (guint64 i = 0; i < n; i++)
    sum += w[i * FLAME_RECORDER_N_METRICS + column];
  if (want <= 0)
    {
      for (guint64 i = 0; i < n; i++)
        w[i * FLAME_RECORDER_N_METRICS + column] = 0;
      return;
    }
  if (sum <= 0)
    {
      w[n * FLAME_RECORDER_N_METRICS + column] = want;
      return;
    }
  for (guint64 i = 0; i < n; i++)
    w[i * FLAME_RECORDER_N_METRICS + column] *= want / sum;
}

#define W(w, sample, metric) \
  ((w)[(sample) * FLAME_RECORDER_N_METRICS + FLAME_RECORDER_METRIC_##metric])

/* Each sampled allocation stands for size / p bytes and 1 / p
 * allocations, p = 1 - exp (-size / mean) being its chance to be
 * sampled; @by_seq gets the allocations by their seq */
static void
weigh_allocations (GArray     *mem,
                   guint64     n,
                   gdouble     mean,
                   gdouble    *w,
                   GHashTable *by_seq)
{
  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);

      if (ev->alloc_seq == 0 && ev->sample < n)
        {
          gdouble p = -expm1 (-(gdouble) ev->size / mean);

          if (p <= 0)
            continue;
          W (w, ev->sample, ALLOCATED) = ev->size / p;
          W (w, ev->sample, ALLOCATIONS) = 1 / p;
          g_hash_table_insert (by_seq, &ev->seq, ev);
        }
    }
}

/* Without the process's own peak (it was killed): the seq at the
 * highest sampled estimate of the live bytes, replayed in order */
static guint64
estimate_peak_seq (GArray     *mem,
                   gdouble    *w,
                   GHashTable *by_seq)
{
  guint64 peak_seq = G_MAXUINT64;
  gdouble live = 0, best = 0;

  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);
      MemEvent *a = ev->alloc_seq == 0 ? ev : g_hash_table_lookup (by_seq, &ev->alloc_seq);

      if (a == NULL || (ev->alloc_seq == 0 && g_hash_table_lookup (by_seq, &ev->seq) == NULL))
        continue;  /* freed here, allocated before the fork */
      live += (ev->alloc_seq == 0 ? 1 : -1) * W (w, a->sample, ALLOCATED);
      if (live > best)
        {
          best = live;
          peak_seq = ev->seq;
        }
    }
  return peak_seq;
}

/* The sampled allocations still live at @peak_seq make the peak's
 * column, those never freed the leaks' */
static void
weigh_live (GArray     *mem,
            guint64     n,
            guint64     peak_seq,
            gdouble    *w,
            GHashTable *by_seq)
{
  g_autofree gboolean *freed_by_peak = g_new0 (gboolean, MAX (n, 1));
  g_autofree gboolean *freed = g_new0 (gboolean, MAX (n, 1));

  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);
      MemEvent *a;

      if (ev->alloc_seq == 0 || (a = g_hash_table_lookup (by_seq, &ev->alloc_seq)) == NULL)
        continue;
      freed[a->sample] = TRUE;
      if (ev->seq <= peak_seq)
        freed_by_peak[a->sample] = TRUE;
    }
  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);
      gdouble bytes;

      if (ev->alloc_seq != 0 || ev->sample >= n)
        continue;
      bytes = W (w, ev->sample, ALLOCATED);
      if (ev->seq <= peak_seq && !freed_by_peak[ev->sample])
        W (w, ev->sample, PEAK) = bytes;
      if (!freed[ev->sample])
        W (w, ev->sample, LEAKED) = bytes;
    }
}

/* The columns scaled to the process's exact totals, added to @totals;
 * without them, the sampled estimates added */
static void
add_memory_totals (Image     *img,
                   guint64    n,
                   gdouble   *w,
                   MemTotals *totals)
{
  if (img->have_stat)
    {
      const FlameRecMemStat *st = &img->stat;
      gdouble peak = st->peak_bytes > st->base_bytes ?
                     (gdouble) (st->peak_bytes - st->base_bytes) : 0;
      gdouble leaked = st->live_bytes > st->base_bytes ?
                       (gdouble) (st->live_bytes - st->base_bytes) : 0;

      scale_column (w, n, FLAME_RECORDER_METRIC_ALLOCATED, st->total_bytes);
      scale_column (w, n, FLAME_RECORDER_METRIC_ALLOCATIONS, st->total_count);
      scale_column (w, n, FLAME_RECORDER_METRIC_PEAK, peak);
      scale_column (w, n, FLAME_RECORDER_METRIC_LEAKED, leaked);
      totals->allocated += st->total_bytes;
      totals->allocations += st->total_count;
      totals->peak += peak;
      totals->peak_processes += peak > 0;
      totals->leaked += leaked;
      totals->exact = TRUE;
      return;
    }
  {
    gdouble peak = 0;

    for (guint64 i = 0; i < n; i++)
      {
        totals->allocated += W (w, i, ALLOCATED);
        totals->allocations += W (w, i, ALLOCATIONS);
        peak += W (w, i, PEAK);
        totals->leaked += W (w, i, LEAKED);
      }
    totals->peak += peak;
    totals->peak_processes += peak > 0;
  }
}

/* The weights of @img's samples, FLAME_RECORDER_N_METRICS per sample.
 * Replayed in order, the sampled allocations live at the process's peak
 * (the last seq before it, which the process sent) give the stack mix
 * at the peak, those never freed the leaks. With the exact totals, each
 * column is scaled to them: the sampling gives the split among stacks,
 * the counters the sums. */
static gdouble *
memory_weights (FlameRecorder *self,
                Image         *img,
                MemTotals     *totals)
{
  guint64 n = img->n_samples;
  /* row n: what no sample stands for (scale_column) */
  gdouble *w = g_new0 (gdouble, (n + 1) * FLAME_RECORDER_N_METRICS);
  g_autoptr(GHashTable) by_seq = g_hash_table_new (g_int64_hash, g_int64_equal);
  gdouble mean = img->have_stat && img->stat.mean > 0 ? img->stat.mean : self->memory_mean;
  guint64 peak_seq;

  g_array_sort (img->mem, compare_mem_events);
  weigh_allocations (img->mem, n, mean, w, by_seq);
  peak_seq = estimate_peak_seq (img->mem, w, by_seq);
  if (img->have_stat)
    peak_seq = img->stat.peak_seq;
  weigh_live (img->mem, n, peak_seq, w, by_seq);
  add_memory_totals (img, n, w, totals);
  return w;
}

#undef W

/* g_qsort_with_data passes pointers to the elements */
static gint
compare_strv (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

/* timer_periods, timer_period_mean_ns, _min_ns, _max_ns: the periods
 * the sampler drew for its jitter, over every process that exited in
 * order (the others did not say) */
static void
set_period_metadata (FlameRecorder *self,
                     FlameProfile  *profile)
{
  guint64 n = 0, min = G_MAXUINT64, max = 0;
  gdouble sum = 0;
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < self->images->len; i++)
    {
      Image *img = g_ptr_array_index (self->images, i);

      if (img->periods == 0)
        continue;
      n += img->periods;
      sum += (gdouble) img->period_sum_ns;
      min = MIN (min, img->period_min_ns);
      max = MAX (max, img->period_max_ns);
    }
  if (n == 0)
    return;
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, n);
  flame_profile_set_metadata (profile, "timer_periods", num);
  g_ascii_formatd (num, sizeof num, "%.1f", sum / (gdouble) n);
  flame_profile_set_metadata (profile, "timer_period_mean_ns", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, min);
  flame_profile_set_metadata (profile, "timer_period_min_ns", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, max);
  flame_profile_set_metadata (profile, "timer_period_max_ns", num);
}

/* The exact memory totals, for the summaries (flame_memory_get_totals),
 * and what makes them estimates or empty */
static void
set_memory_metadata (FlameRecorder   *self,
                     FlameProfile    *profile,
                     const MemTotals *mem,
                     guint64          n_samples)
{
  char num[64];

  g_snprintf (num, sizeof num, "%.0f", mem->allocated);
  flame_profile_set_metadata (profile, "memory_allocated_bytes", num);
  g_snprintf (num, sizeof num, "%.0f", mem->allocations);
  flame_profile_set_metadata (profile, "memory_allocations", num);
  g_snprintf (num, sizeof num, "%.0f", mem->peak);
  flame_profile_set_metadata (profile, "memory_peak_bytes", num);
  g_snprintf (num, sizeof num, "%.0f", mem->leaked);
  flame_profile_set_metadata (profile, "memory_leaked_bytes", num);
  /* above 1, memory_peak_bytes is an upper bound (flame-memory.h) */
  g_snprintf (num, sizeof num, "%u", mem->peak_processes);
  flame_profile_set_metadata (profile, "memory_peak_processes", num);
  g_snprintf (num, sizeof num, "%u", self->memory_mean);
  flame_profile_set_metadata (profile, "memory_sampling_mean_bytes", num);
  if (!mem->exact)
    flame_profile_add_warning (profile, "no process reported its exact memory totals "
                               "(killed?): the figures are sampled estimates");
  if (n_samples == 0)
    flame_profile_add_warning (profile, "no sampled allocations: the command allocated "
                               "too little (the sampling mean is %u bytes)", self->memory_mean);
}

/* Each module path with a build id, once: PATH -> hex id */
static void
collect_build_ids (Image      *img,
                   GHashTable *ids)
{
  for (guint e = 0; e < img->epochs->len; e++)
    {
      Epoch *epoch = g_ptr_array_index (img->epochs, e);

      for (guint m = 0; m < epoch->modules->len; m++)
        {
          Module *mod = &g_array_index (epoch->modules, Module, m);

          if (mod->build_id != NULL && !g_hash_table_contains (ids, mod->path))
            g_hash_table_insert (ids, g_strdup (mod->path), hex (mod->build_id));
        }
    }
}

/* "PATH=ID;PATH=ID", sorted, so two recordings of one program list them alike */
static char *
build_ids_text (GHashTable *ids)
{
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array (ids, NULL);
  guint n = g_hash_table_size (ids);
  GString *out = g_string_new (NULL);

  g_qsort_with_data (keys, n, sizeof (gpointer), compare_strv, NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s=%s", i ? ";" : "", (char *) keys[i],
                            (char *) g_hash_table_lookup (ids, keys[i]));
  return g_string_free (out, FALSE);
}

/* The command as a shell would take it: quoted only when an argument
 * needs it */
static char *
quoted_command (char **argv)
{
  GString *s;
  guint i;

  for (i = 0; argv[i] != NULL; i++)
    if (strpbrk (argv[i], " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL || argv[i][0] == '\0')
      break;
  if (argv[i] == NULL)
    return g_strjoinv (" ", argv);
  s = g_string_new (NULL);
  for (guint j = 0; argv[j] != NULL; j++)
    {
      g_autofree char *q = g_shell_quote (argv[j]);

      g_string_append_printf (s, "%s%s", j ? " " : "", q);
    }
  return g_string_free (s, FALSE);
}

/* @key: the strings of @items joined by @separator, when there are any */
static void
set_joined_metadata (FlameProfile *profile,
                     const char   *key,
                     GPtrArray    *items,
                     const char   *separator)
{
  g_autofree char *joined = NULL;

  if (items->len == 0)
    return;
  g_ptr_array_add (items, NULL);
  joined = g_strjoinv (separator, (char **) items->pdata);
  g_ptr_array_remove_index (items, items->len - 1);
  flame_profile_set_metadata (profile, key, joined);
}

/* What was run, where and when */
static void
set_command_metadata (FlameRecorder *self,
                      FlameProfile  *profile,
                      GDateTime     *started)
{
  g_autofree char *quoted = quoted_command (self->argv);
  g_autofree char *args = g_strjoinv ("\x1f", self->argv + 1);
  g_autofree char *started_s = g_date_time_format_iso8601 (started);

  flame_profile_set_metadata (profile, "recorder", "flamediff-sampler " PACKAGE_VERSION);
  flame_profile_set_metadata (profile, "command", quoted);
  flame_profile_set_metadata (profile, "program", self->argv[0]);
  /* arguments one by one, separated by U+001F (unit separator) */
  flame_profile_set_metadata (profile, "arguments", args);
  flame_profile_set_metadata (profile, "working_directory", self->cwd);
  flame_profile_set_metadata (profile, "start_time", started_s);
}

/* What _flame_recorder_build_profile() counts over the processes */
typedef struct
{
  MemTotals mem;
  gdouble   total_weight;   /* CPU: periods */
  guint64   n_samples, n_lost;
  guint     n_processes, n_unrecorded;
} RecordingCounts;

/* Every process's samples into @profile, their build IDs into @ids,
 * the symbol files' warnings (once per file) into the profile */
static void
add_processes (FlameRecorder   *self,
               FlameProfile    *profile,
               GHashTable      *ids,
               RecordingCounts *c)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* every module file is read once for all the processes */
  g_autoptr(FlameSymCache) cache = flame_sym_cache_new (SAMPLER_PREFIX);
  gdouble period_ns = 1e9 / self->hz;
  GPtrArray *warnings;

  for (guint i = 0; i < self->images->len; i++)
    {
      Image *img = g_ptr_array_index (self->images, i);
      g_autofree gdouble *w = NULL;

      c->n_processes++;
      if (img->disabled)
        c->n_unrecorded++;
      c->n_samples += img->n_samples;
      c->n_lost += img->lost;
      w = self->memory_mean > 0 ? memory_weights (self, img, &c->mem) : NULL;
      add_image_samples (self, profile, cache, img, stack, period_ns, w, &c->total_weight);
      collect_build_ids (img, ids);
    }
  /* once per file for the whole recording */
  warnings = flame_sym_cache_get_warnings (cache);
  for (guint i = 0; i < warnings->len; i++)
    flame_profile_add_warning (profile, "%s", (const char *) g_ptr_array_index (warnings, i));
}

/* The recording's figures as metadata (a '.' in every locale: metadata
 * is data) */
static void
set_counts_metadata (FlameRecorder         *self,
                     FlameProfile          *profile,
                     const RecordingCounts *c,
                     gdouble                duration_ms)
{
  char num[64];

  g_ascii_formatd (num, sizeof num, "%.3f", duration_ms);
  flame_profile_set_metadata (profile, "duration_ms", num);
  g_snprintf (num, sizeof num, "%u", self->hz);
  flame_profile_set_metadata (profile, "frequency_hz", num);
  g_ascii_formatd (num, sizeof num, "%.1f", self->effective_hz);
  flame_profile_set_metadata (profile, "effective_frequency_hz", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, c->n_samples);
  flame_profile_set_metadata (profile, "samples", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, c->n_lost);
  flame_profile_set_metadata (profile, "samples_lost", num);
  g_snprintf (num, sizeof num, "%u", c->n_processes);
  flame_profile_set_metadata (profile, "processes", num);
  set_period_metadata (self, profile);
  if (c->n_unrecorded > 0)
    {
      g_snprintf (num, sizeof num, "%u", c->n_unrecorded);
      flame_profile_set_metadata (profile, "processes_not_sampled", num);
    }
}

/* How it ended, the build IDs, what the runtimes and the sampler said */
static void
set_run_metadata (FlameRecorder *self,
                  FlameProfile  *profile,
                  GHashTable    *ids)
{
  g_autofree char *build_ids = build_ids_text (ids);

  if (self->have_status)
    {
      g_autofree char *status = describe_status (self->wait_status);

      flame_profile_set_metadata (profile, "exit_status", status);
    }
  flame_profile_set_metadata (profile, "build_ids", build_ids);
  set_joined_metadata (profile, "jit_maps", self->jit_maps, "; ");
  /* what the recorder added to the environment for them */
  if (self->jit_maps->len > 0)
    flame_profile_set_metadata (profile, "node_options", NODE_JIT_OPTIONS);
  set_joined_metadata (profile, "runtimes", self->runtimes, "; ");
  set_joined_metadata (profile, "notes", self->notes, "\n");
  for (guint i = 0; i < self->notes->len; i++)
    flame_profile_add_warning (profile, "%s", (const char *) g_ptr_array_index (self->notes, i));
}

FlameProfile *
_flame_recorder_build_profile (FlameRecorder *self,
                               GDateTime     *started)
{
  FlameProfile *profile = flame_profile_new (FLAME_FORMAT_SPEEDSCOPE,
                                            self->memory_mean > 0 ? FLAME_RECORDER_N_METRICS : 1);
  g_autoptr(GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  RecordingCounts c = { 0 };
  gdouble period_ns = 1e9 / self->hz;
  gdouble duration_ms;

  if (self->memory_mean > 0)
    {
      flame_profile_set_unit (profile, FLAME_UNIT_BYTES);
      flame_profile_set_event (profile, "malloc");
    }
  else
    {
      flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
      flame_profile_set_interval_ms (profile, 1000.0 / self->hz);
      flame_profile_set_event (profile, "cpu-clock");
    }

  add_processes (self, profile, ids, &c);
  flame_profile_add_samples (profile, 0, c.n_samples);
  if (self->memory_mean > 0)
    set_memory_metadata (self, profile, &c.mem, c.n_samples);
  else if (c.n_samples == 0)
    flame_profile_add_warning (profile, "no samples: the command used less CPU time than "
                               "one timer tick (4 ms with a 250 Hz kernel), or was not sampled");

  duration_ms = (self->end_us - self->start_us) / 1000.0;
  flame_profile_set_duration_ms (profile, duration_ms);
  self->effective_hz = c.total_weight > 0 && self->memory_mean == 0 ?
                       c.n_samples / (c.total_weight * period_ns / 1e9) : 0;

  set_command_metadata (self, profile, started);
  set_counts_metadata (self, profile, &c, duration_ms);
  set_run_metadata (self, profile, ids);

  flame_profile_finish (profile);
  return profile;
}

/* DIR/PROGRAM-STAMP[-N]SUFFIX that does not exist yet */
static char *
unique_path (const char *dir,
             const char *program,
             const char *suffix)
{
  g_autofree char *base = g_path_get_basename (program);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");

  for (guint i = 1; ; i++)
    {
      g_autofree char *name = i == 1 ?
        g_strdup_printf ("%s-%s%s", base, stamp, suffix) :
        g_strdup_printf ("%s-%s-%u%s", base, stamp, i, suffix);
      char *path = g_build_filename (dir, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        return path;
      g_free (path);
    }
}

char *
_flame_recorder_unique_output_path (const char *program)
{
  g_autofree char *dir = flame_recorder_default_dir ();

  return unique_path (dir, program, ".speedscope.json");
}

/**
 * flame_recorder_new_runs_dir:
 *
 * A new folder's path in the recordings folder for repeated runs of
 * @program (PROGRAM-STAMP, not created yet), which
 * flame_recorder_run_path() fills.
 */
char *
flame_recorder_new_runs_dir (const char *program)
{
  g_autofree char *dir = flame_recorder_default_dir ();

  g_return_val_if_fail (program != NULL, NULL);
  return unique_path (dir, program, "");
}

/**
 * flame_recorder_run_path:
 * @index: from 1
 *
 * DIR/run-NN.speedscope.json: run @index of a set of repeated runs, a
 * name that sorts in the order of the runs (flame_comparison_list_runs).
 */
char *
flame_recorder_run_path (const char *dir,
                         guint       index)
{
  g_autofree char *name = g_strdup_printf ("run-%02u.speedscope.json", index);

  g_return_val_if_fail (dir != NULL, NULL);
  return g_build_filename (dir, name, NULL);
}

gboolean
_flame_recorder_write_profile (FlameRecorder  *self,
                               FlameProfile   *profile,
                               GError        **error)
{
  g_autoptr(GString) json = g_string_new (NULL);
  g_autofree char *dir = NULL;

  if (self->output_path == NULL)
    self->output_path = _flame_recorder_unique_output_path (self->argv[0]);
  dir = g_path_get_dirname (self->output_path);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot create %s: %s", dir, g_strerror (errno));
      return FALSE;
    }
  if (!(flame_profile_get_n_columns (profile) == FLAME_RECORDER_N_METRICS && self->memory_mean > 0 ?
        flame_speedscope_write_columns (profile, metric_names, metric_units, json, error) :
        flame_speedscope_write (profile, json, error)))
    return FALSE;
  /* temporary file, fsync, rename: never half a recording on disk */
  if (!g_file_set_contents_full (self->output_path, json->str, json->len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, error))
    return FALSE;
  flame_profile_set_path (profile, self->output_path);
  return TRUE;
}

