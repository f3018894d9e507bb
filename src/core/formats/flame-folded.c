/* flame-folded.c: folded ("collapsed") stacks, one "a;b;c COUNT" a line.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-cpython.h"
#include "flame-error.h"
#include "flame-folded.h"
#include "flame-mapped.h"
#include "flame-names.h"

#define SNIFF_LINES 64
/* the input behind the line being read is given back this often */
#define RELEASE_STEP ((gsize) 16 << 20)

/* Parses the number that ends at @end (exclusive): digits with an optional
 * fraction, as flamegraph.pl accepts (`12`, `12.5`, `12.`). Returns the
 * start of the number, or NULL when there is none. */
static const char *
parse_count_backwards (const char *start,
                       const char *end,
                       gdouble    *value)
{
  const char *p = end;
  const char *dot = NULL;

  while (p > start && (g_ascii_isdigit (p[-1]) || (p[-1] == '.' && dot == NULL)))
    {
      p--;
      if (*p == '.')
        dot = p;
    }
  if (p == end)
    return NULL;
  /* the count must stand alone: preceded by a blank (or nothing) */
  if (p > start && !flame_is_blank (p[-1]))
    return NULL;
  if (dot == p)         /* ".5" is not accepted */
    return NULL;

  *value = flame_parse_decimal (p, end);
  return p;
}

typedef struct
{
  const char *stack;
  gsize       stack_len;
  gdouble     counts[2];
  guint       n_counts;
} FoldedLine;

/* Splits "stack count [count]" (already stripped of the line end and of
 * trailing blanks). @want_counts: 1, 2, or 0 to find out. */
static gboolean
parse_line (const char *line,
            gsize       len,
            guint       want_counts,
            FoldedLine *out)
{
  const char *end = line + len;
  const char *p;
  gdouble a, b;

  p = parse_count_backwards (line, end, &b);
  if (p == NULL)
    return FALSE;
  while (p > line && flame_is_blank (p[-1]))
    p--;

  out->n_counts = 1;
  out->counts[0] = b;

  if (want_counts != 1)
    {
      const char *q = parse_count_backwards (line, p, &a);
      if (q != NULL && q > line)
        {
          while (q > line && flame_is_blank (q[-1]))
            q--;
          if (q > line)
            {
              out->n_counts = 2;
              out->counts[0] = a;
              out->counts[1] = b;
              p = q;
            }
        }
      if (want_counts == 2 && out->n_counts != 2)
        return FALSE;
    }

  if (p == line)
    return FALSE;
  out->stack = line;
  out->stack_len = p - line;
  return TRUE;
}

static inline gboolean
is_comment_or_empty (const char *line,
                     gsize       len)
{
  return len == 0 || line[0] == '#';
}

/* A stack of numbers only ("16 3", "+2 0 1" once the counts are off the
 * end) is how callgrind and cachegrind write their cost lines; no folded
 * stack looks like that, so for sniffing it does not count as one. */
static gboolean
is_numbers_only (const char *s,
                 gsize       len)
{
  gsize i = 0;

  /* words of [+-]digits, 0xhex or "*", separated by blanks */
  while (i < len)
    {
      gsize start;

      while (i < len && flame_is_blank (s[i]))
        i++;
      if (i == len)
        break;
      if (s[i] == '*')
        {
          i++;
        }
      else if (s[i] == '0' && i + 2 < len && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
               g_ascii_isxdigit (s[i + 2]))
        {
          for (i += 2; i < len && g_ascii_isxdigit (s[i]); i++)
            ;
        }
      else
        {
          if (s[i] == '+' || s[i] == '-')
            i++;
          start = i;
          while (i < len && g_ascii_isdigit (s[i]))
            i++;
          if (i == start)
            return FALSE;
        }
      if (i < len && !flame_is_blank (s[i]))
        return FALSE;
    }
  return TRUE;
}

/* At least half of the first SNIFF_LINES lines that are not
 * comments must be "stack count" or "stack before after" lines. */
gboolean
flame_folded_sniff (const char *data,
                    gsize       len,
                    gboolean   *is_pair)
{
  guint valid = 0, pairs = 0, seen = 0;
  gsize pos = 0;

  while (pos < len && seen < SNIFF_LINES)
    {
      gsize line_len;
      const char *line = flame_next_line (data, len, &pos, &line_len);
      FoldedLine fl;

      if (is_comment_or_empty (line, line_len))
        continue;
      seen++;
      if (memchr (line, 0, line_len) != NULL)
        return FALSE;
      if (parse_line (line, line_len, 0, &fl) && !is_numbers_only (fl.stack, fl.stack_len))
        {
          valid++;
          if (fl.n_counts == 2)
            pairs++;
        }
    }

  *is_pair = valid > 0 && pairs == valid;
  return valid > 0 && valid * 2 >= seen;
}

/* "tid:123" */
static gboolean
is_tid_frame (const char *f,
              gsize       len,
              gint64     *tid)
{
  guint64 v = 0;

  if (len < 5 || memcmp (f, "tid:", 4) != 0 || len > 4 + 19)
    return FALSE;
  for (gsize i = 4; i < len; i++)
    {
      if (!g_ascii_isdigit (f[i]))
        return FALSE;
      v = v * 10 + (guint64) (f[i] - '0');
    }
  *tid = (gint64) v;
  return TRUE;
}

gboolean
flame_folded_is_cpython (const char *data,
                         gsize       len)
{
  gsize pos = 0;
  guint seen = 0;

  /* CPython writes no header or comments: the first stack decides, and
   * the next few must agree */
  while (pos < len && seen < SNIFF_LINES)
    {
      gsize line_len;
      const char *line = flame_next_line (data, len, &pos, &line_len);
      const char *semi;
      FoldedLine fl;
      gint64 tid;

      if (is_comment_or_empty (line, line_len))
        continue;
      if (!parse_line (line, line_len, 1, &fl))
        continue;
      semi = memchr (fl.stack, ';', fl.stack_len);
      if (!is_tid_frame (fl.stack, semi ? (gsize) (semi - fl.stack) : fl.stack_len, &tid))
        return FALSE;
      seen++;
    }
  return seen > 0;
}

/* Splits CPython's "file.py:Qual.name:123" (file = basename, which holds
 * no ':'; qualnames hold none either) into its parts. Frames without
 * both colons (<GC>, <native>) are names. */
static guint32
intern_cpython_frame (FlameProfile *profile,
                      const char   *f,
                      gsize         len)
{
  const char *first = memchr (f, ':', len);
  const char *last = first;
  guint64 line = 0;

  for (const char *q = f + len; first != NULL && q > first + 1; q--)
    if (q[-1] == ':')
      {
        last = q - 1;
        break;
      }
  if (first == NULL || last == first || last + 1 == f + len)
    return flame_profile_intern_frame (profile, f, len, NULL, 0, 0, 0);
  for (const char *q = last + 1; q < f + len; q++)
    {
      if (!g_ascii_isdigit (*q) || line > G_MAXUINT32 / 10)
        return flame_profile_intern_frame (profile, f, len, NULL, 0, 0, 0);
      line = line * 10 + (guint64) (*q - '0');
    }
  return flame_profile_intern_frame (profile, first + 1, last - first - 1,
                                     f, first - f, (guint32) line, 0);
}

/* What the numbers of a file written by Flamediff are, from its first
 * line "# flamediff-folded unit=ms samples=120,130 interval_ms=10
 * event=cycles" (flame_profile_write_folded()). */
typedef struct
{
  gdouble factor;        /* weight per unit of count */
  gboolean has_samples;
  gdouble samples[2];
} FoldedHeader;

static void
parse_header (FlameProfile *profile,
              const char   *line,
              gsize         len,
              FoldedHeader *header)
{
  static const char prefix[] = "# flamediff-folded ";
  g_autofree char *text = NULL;
  g_auto(GStrv) tokens = NULL;

  if (len < sizeof prefix - 1 || memcmp (line, prefix, sizeof prefix - 1) != 0)
    return;
  text = g_strndup (line + sizeof prefix - 1, len - (sizeof prefix - 1));
  tokens = g_strsplit (text, " ", -1);
  for (guint i = 0; tokens[i] != NULL; i++)
    {
      const char *eq = strchr (tokens[i], '=');
      const char *v;

      if (eq == NULL)
        continue;
      v = eq + 1;
      if (g_str_has_prefix (tokens[i], "unit="))
        {
          if (strcmp (v, "ms") == 0)
            {
              flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
              header->factor = 1e6;
            }
          else if (strcmp (v, "bytes") == 0)
            flame_profile_set_unit (profile, FLAME_UNIT_BYTES);
          else if (strcmp (v, "count") == 0)
            flame_profile_set_unit (profile, FLAME_UNIT_COUNT);
        }
      else if (g_str_has_prefix (tokens[i], "interval_ms="))
        flame_profile_set_interval_ms (profile, g_ascii_strtod (v, NULL));
      else if (g_str_has_prefix (tokens[i], "event=") && *v)
        flame_profile_set_event (profile, v);
      else if (g_str_has_prefix (tokens[i], "sample_type=") && *v)
        flame_profile_set_metadata (profile, "sample-type", v);
      else if (g_str_has_prefix (tokens[i], "samples="))
        {
          g_auto(GStrv) parts = g_strsplit (v, ",", 2);

          header->has_samples = TRUE;
          for (guint c = 0; c < 2 && parts[c] != NULL; c++)
            header->samples[c] = g_ascii_strtod (parts[c], NULL);
        }
    }
}

/* "skipped N lines that are not folded stacks (first at line L)" */
static void
warn_skipped (FlameProfile *profile,
              FlameInput   *in,
              guint64       n_bad,
              guint64       first_bad)
{
  if (n_bad > 0)
    flame_profile_add_warning (profile,
                               "%s: skipped %" G_GUINT64_FORMAT " line%s that %s not "
                               "folded stacks (first at line %" G_GUINT64_FORMAT ")",
                               in->name, n_bad, n_bad == 1 ? "" : "s",
                               n_bad == 1 ? "is" : "are", first_bad);
}

/* The frames of one CPython stack into @ids, root first: the tid:N root
 * goes to @tid (else -1), the profiler's own frames are left out and
 * set @hidden. FALSE with @error set for a frame or stack too large. */
static gboolean
cpython_stack_frames (FlameProfile     *profile,
                      FlameInput       *in,
                      const FoldedLine *fl,
                      guint64           lineno,
                      GArray           *ids,
                      gint64           *tid,
                      gboolean         *hidden,
                      GError          **error)
{
  gsize start = 0;

  g_array_set_size (ids, 0);
  *tid = -1;
  *hidden = FALSE;
  while (start <= fl->stack_len)
    {
      const char *f = fl->stack + start;
      const char *semi = memchr (f, ';', fl->stack_len - start);
      gsize flen = semi ? (gsize) (semi - f) : fl->stack_len - start;
      const char *colon = memchr (f, ':', flen);
      guint32 id;

      if (G_UNLIKELY (flen > FLAME_MAX_NAME_LEN))
        {
          flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, lineno,
                                 "a frame name is longer than %d bytes", FLAME_MAX_NAME_LEN);
          return FALSE;
        }
      if (G_UNLIKELY (ids->len >= FLAME_MAX_DEPTH))
        {
          flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, lineno,
                                 "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
          return FALSE;
        }
      start += flen + 1;
      if (f == fl->stack && is_tid_frame (f, flen, tid))
        continue;
      if (colon != NULL && flame_cpython_is_internal_file (f, colon - f))
        {
          *hidden = TRUE;
          continue;
        }
      id = intern_cpython_frame (profile, f, flen);
      g_array_append_val (ids, id);
    }
  return TRUE;
}

/* CPython collapsed files are small (one line per distinct stack), so
 * this path favours simplicity over the prefix cache below. The tid:N
 * root becomes a thread of the profile and leaves the stack: CPython's
 * own flame graph and diff merge all threads, and thread ids change from
 * run to run, so keeping them as roots would make two runs never match.
 * The profiler's own frames (flame_cpython_is_internal_file()) leave the
 * stacks as they do in CPython and in --binary files; 3.15.2 writes none,
 * files of earlier builds may. */
static FlameProfile *
load_cpython (FlameInput  *in,
              GError     **error)
{
  g_autoptr(FlameProfile) profile = NULL;
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint64 lineno = 0, n_valid = 0, n_bad = 0, first_bad = 0;
  gsize pos = 0;

  profile = flame_profile_new (FLAME_FORMAT_CPYTHON_COLLAPSED, 1);
  flame_profile_set_path (profile, in->name);
  flame_profile_set_unit (profile, FLAME_UNIT_SAMPLES);

  while (pos < in->len)
    {
      FoldedLine fl;
      gsize line_len;
      const char *line;
      gint64 tid;
      gboolean hidden;

      if (!flame_input_tick (in, pos, error))
        return NULL;
      line = flame_next_line (in->data, in->len, &pos, &line_len);
      lineno++;
      if (is_comment_or_empty (line, line_len))
        continue;
      if (!parse_line (line, line_len, 1, &fl))
        {
          if (n_bad++ == 0)
            first_bad = lineno;
          continue;
        }
      if (!cpython_stack_frames (profile, in, &fl, lineno, ids, &tid, &hidden, error))
        return NULL;
      if (ids->len == 0)
        {
          /* a bare thread root holds no function; a stack of the
           * profiler's own frames is no sample (as in CPython) */
          if (!hidden && n_bad++ == 0)
            first_bad = lineno;
          continue;
        }
      flame_profile_add_stack (profile, 0, (const guint32 *) ids->data, ids->len, fl.counts[0]);
      flame_profile_add_samples (profile, 0, fl.counts[0]);
      if (tid >= 0)
        {
          char name[40];
          g_snprintf (name, sizeof name, "tid %" G_GINT64_FORMAT, tid);
          flame_profile_ensure_thread (profile, name, -1, tid)->samples += fl.counts[0];
        }
      n_valid++;
    }

  if (n_valid == 0)
    {
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no stacks in the file");
      return NULL;
    }
  warn_skipped (profile, in, n_bad, first_bad);
  flame_profile_finish (profile);
  return g_steal_pointer (&profile);
}

/* The current stack, frame by frame: kept for the next line, which
 * reuses the part it shares (see add_stack()). */
typedef struct
{
  gsize   *ends;    /* offset of the ';' (or the end) after frame k */
  guint32 *names;   /* flame_strings_hash() of frame k's name */
  guint32 *frames;  /* frame id of frame k */
  guint    alloc;
} PrefixCache;

static void
prefix_cache_reserve (PrefixCache *pc,
                      guint        n)
{
  if (n <= pc->alloc)
    return;
  pc->alloc = MAX (n, pc->alloc * 2);
  pc->ends = g_renew (gsize, pc->ends, pc->alloc);
  pc->names = g_renew (guint32, pc->names, pc->alloc);
  pc->frames = g_renew (guint32, pc->frames, pc->alloc);
}

static void
prefix_cache_clear (PrefixCache *pc)
{
  g_free (pc->ends);
  g_free (pc->names);
  g_free (pc->frames);
}

static inline gsize
common_prefix (const char *a,
               const char *b,
               gsize       n)
{
  gsize i = 0;

  while (i + 8 <= n)
    {
      guint64 x, y;
      memcpy (&x, a + i, 8);
      memcpy (&y, b + i, 8);
      if (x != y)
        return i + (__builtin_ctzll (x ^ y) >> 3);
      i += 8;
    }
  while (i < n && a[i] == b[i])
    i++;
  return i;
}

/* Files at least this large are loaded by two threads */
#define PIPELINE_MIN_BYTES ((gsize) 4 << 20)
/* words of a chunk of stacks (add_stack()), and chunks in flight */
#define CHUNK_WORDS ((gsize) 1 << 18)
#define N_CHUNKS 4

/* Stacks on their way from the reader (which splits the lines and
 * interns the names) to the builder (which walks the tree): per line
 * the number of frames shared with the line before, the depth, then
 * the frames that are not shared; its weights (already multiplied by
 * the header's factor) in @weights. */
typedef struct
{
  guint32  *words;
  gsize     n_words;
  gsize     alloc_words;
  gdouble  *weights;
  guint     n_lines;
  guint     alloc_lines;
  gsize     start;      /* where in the input its first line is, about */
  gboolean  last;       /* the reader is done (or failed) */
} StacksChunk;

static StacksChunk *
stacks_chunk_new (gsize n_words)
{
  StacksChunk *chunk = g_new0 (StacksChunk, 1);

  chunk->alloc_words = n_words;
  chunk->words = g_new (guint32, n_words);
  chunk->alloc_lines = n_words / 4;
  chunk->weights = g_new (gdouble, chunk->alloc_lines * 2);
  return chunk;
}

static void
stacks_chunk_free (gpointer data)
{
  StacksChunk *chunk = data;

  g_free (chunk->words);
  g_free (chunk->weights);
  g_free (chunk);
}

/* The builder's side: the tree, and the node and path hash of each
 * frame of the current stack. */
typedef struct
{
  FlameTree  *tree;
  guint       n_columns;
  gsize       input_len;
  guint32    *nodes;
  guint32    *hashes;
  guint       alloc;
  GAsyncQueue *full;   /* chunks to build, when the builder has a thread */
  GAsyncQueue *empty;  /* chunks built, back to the reader */
} FoldedBuilder;

/* Adds the stacks of @chunk to the tree. A level's path hash follows
 * from the frames alone, so the index slots of a line's new levels are
 * all prefetched before the first is looked up: the lookups of a line
 * wait for memory at once. */
static void
build_chunk (FoldedBuilder     *b,
             const StacksChunk *chunk)
{
  const guint32 *w = chunk->words;
  const gdouble *weights = chunk->weights;

  flame_tree_expect_from_progress (b->tree, chunk->start, b->input_len);
  for (guint line = 0; line < chunk->n_lines; line++, weights += b->n_columns)
    {
      guint first = w[0], depth = w[1];
      guint32 node = first == 0 ? FLAME_TREE_ROOT : b->nodes[first - 1];
      guint32 hash = first == 0 ? FLAME_TREE_ROOT_HASH : b->hashes[first - 1];

      if (G_UNLIKELY (depth > b->alloc))
        {
          b->alloc = MAX (depth, b->alloc * 2);
          b->nodes = g_renew (guint32, b->nodes, b->alloc);
          b->hashes = g_renew (guint32, b->hashes, b->alloc);
        }
      w += 2;
      for (guint d = first; d < depth; d++)
        {
          hash = flame_tree_path_hash (hash, w[d - first], d + 1);
          b->hashes[d] = hash;
          flame_tree_prefetch (b->tree, hash);
        }
      for (guint d = first; d < depth; d++, w++)
        {
          node = flame_tree_child_hashed (b->tree, node, w[0], b->hashes[d]);
          b->nodes[d] = node;
        }
      for (guint c = 0; c < b->n_columns; c++)
        b->tree->self[c][node] += weights[c];
    }
}

static gpointer
builder_thread (gpointer data)
{
  FoldedBuilder *b = data;
  gboolean last = FALSE;

  g_assert (b != NULL);

  while (!last)
    {
      StacksChunk *chunk = g_async_queue_pop (b->full);

      last = chunk->last;
      build_chunk (b, chunk);
      g_async_queue_push (b->empty, chunk);
    }
  return NULL;
}

/* The reader's side: one pass over the lines, front to back. */
typedef struct
{
  FlameInput         *in;
  guint               n_columns;
  gboolean            is_pair;
  const FoldedHeader *header;
  FlameFrames        *frames;
  FoldedBuilder      *builder;
  GThread            *thread;      /* the builder's, or NULL: built here */
  gsize               chunk_words;
  guint               n_chunks;    /* made so far */
  StacksChunk        *chunk;       /* being filled */
  PrefixCache         pc;
  FoldedLine          prev;
  guint               prev_depth;
  GString            *rust;
  guint64             lineno, n_valid, n_bad, first_bad;
  gdouble             samples[2];
} FoldedReader;

/* The end of the last line read */
static gsize
reader_position (const FoldedReader *r)
{
  return r->prev.stack != NULL ? (gsize) (r->prev.stack - r->in->data) + r->prev.stack_len : 0;
}

/* Hands the chunk being filled to the builder and takes an empty one. */
static void
reader_flush (FoldedReader *r,
              gboolean      last)
{
  StacksChunk *chunk = r->chunk;

  chunk->last = last;
  if (r->thread == NULL)
    {
      build_chunk (r->builder, chunk);
      chunk->n_words = chunk->n_lines = 0;
      chunk->start = reader_position (r);
      return;
    }
  g_async_queue_push (r->builder->full, chunk);
  r->chunk = NULL;
  if (last)
    return;
  if (r->n_chunks < N_CHUNKS)
    {
      r->chunk = stacks_chunk_new (r->chunk_words);
      r->n_chunks++;
    }
  else
    r->chunk = g_async_queue_pop (r->builder->empty);
  r->chunk->n_words = r->chunk->n_lines = 0;
  r->chunk->start = reader_position (r);
}

/* How many frames of @fl the previous stack shares, from the common
 * prefix of the two lines; sets the offset of the first frame that is
 * not shared. */
static guint
shared_frames (FoldedReader     *r,
               const FoldedLine *fl,
               gsize            *start)
{
  const FoldedLine *prev = &r->prev;
  gsize shared_len;
  guint depth = 0;

  *start = 0;
  if (prev->stack == NULL)
    return 0;
  shared_len = common_prefix (prev->stack, fl->stack, MIN (prev->stack_len, fl->stack_len));
  if (shared_len == prev->stack_len && shared_len == fl->stack_len)
    {
      *start = fl->stack_len + 1;
      return r->prev_depth;
    }
  /* frame k is shared when the previous stack has a ';' after it inside
   * the common prefix, or ends there while the current stack goes on
   * with a ';' */
  while (depth < r->prev_depth &&
         (r->pc.ends[depth] < shared_len ||
          (r->pc.ends[depth] == shared_len && shared_len == prev->stack_len &&
           shared_len < fl->stack_len && fl->stack[shared_len] == ';')))
    depth++;
  if (depth > 0)
    *start = r->pc.ends[depth - 1] + 1;
  return depth;
}

/* Pass 1 of add_stack(): the frames of @fl from offset @start split
 * into the prefix cache as frame @depth on, their names hashed; returns
 * the new depth, or 0 with @error set. */
static guint
split_frames (FoldedReader      *r,
              const FoldedLine  *fl,
              guint              depth,
              gsize              start,
              GError           **error)
{
  while (start <= fl->stack_len)
    {
      const char *f = fl->stack + start;
      const char *semi = memchr (f, ';', fl->stack_len - start);
      gsize flen = semi ? (gsize) (semi - f) : fl->stack_len - start;

      if (G_UNLIKELY (flen > FLAME_MAX_NAME_LEN))
        {
          flame_input_set_error (r->in, error, FLAME_ERROR_TOO_LARGE, r->lineno,
                                 "a frame name is longer than %d bytes", FLAME_MAX_NAME_LEN);
          return 0;
        }
      if (G_UNLIKELY (depth >= FLAME_MAX_DEPTH))
        {
          flame_input_set_error (r->in, error, FLAME_ERROR_TOO_LARGE, r->lineno,
                                 "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
          return 0;
        }
      prefix_cache_reserve (&r->pc, depth + 1);
      r->pc.ends[depth] = start + flen;
      r->pc.names[depth] = flame_strings_hash (f, flen);
      depth++;
      start += flen + 1;
    }
  return depth;
}

/* Pass 2: frames @first to @depth - 1 interned. */
static void
intern_frames (FoldedReader     *r,
               const FoldedLine *fl,
               guint             first,
               guint             depth)
{
  PrefixCache *pc = &r->pc;

  for (guint d = first; d < depth; d++)
    {
      gsize fstart = d == 0 ? 0 : pc->ends[d - 1] + 1;

      /* Rust legacy names as the perf script loader names them
       * (stackcollapse-perf.pl leaves them half demangled) */
      if (G_UNLIKELY (flame_names_rust_legacy (fl->stack + fstart, pc->ends[d] - fstart, r->rust)))
        pc->frames[d] = flame_frames_intern_name (r->frames, r->rust->str, r->rust->len);
      else
        pc->frames[d] = flame_frames_intern_name_hashed (r->frames, fl->stack + fstart,
                                                         pc->ends[d] - fstart, pc->names[d]);
    }
}

/* Stack @fl into the chunk for the builder. Stacks that share a prefix
 * with the previous line (sorted output, or the same stack again) reuse
 * its frames: only the frames after the first difference are split and
 * interned, in two passes, so that the hash-table lookups of one pass do
 * not wait for each other (in shuffled files, where lines share little
 * with the line before, nearly every lookup misses the CPU caches): (1)
 * split the frames and hash their names, then prefetch where the names
 * are interned; (2) intern them. The builder then prefetches and looks
 * up their nodes (build_chunk()). Strings, frames and nodes are made in
 * the same order as one frame at a time would make them. FALSE with
 * @error set on a stack too large. */
static gboolean
add_stack (FoldedReader      *r,
           const FoldedLine  *fl,
           GError           **error)
{
  gsize start;
  guint first = shared_frames (r, fl, &start);
  guint depth = split_frames (r, fl, first, start, error);
  StacksChunk *chunk;
  guint32 *w;

  if (depth == 0)
    return FALSE;
  flame_frames_prefetch_names (r->frames, r->pc.names + first, depth - first);
  flame_frames_prefetch_found (r->frames, r->pc.names + first, depth - first, FALSE);
  flame_frames_prefetch_found (r->frames, r->pc.names + first, depth - first, TRUE);
  intern_frames (r, fl, first, depth);

  if (r->chunk->n_words + 2 + (gsize) (depth - first) > r->chunk->alloc_words ||
      r->chunk->n_lines == r->chunk->alloc_lines)
    reader_flush (r, FALSE);
  chunk = r->chunk;
  if (G_UNLIKELY (2 + (gsize) (depth - first) > chunk->alloc_words))
    {
      /* a stack deeper than a chunk holds */
      chunk->alloc_words = 2 + (gsize) (depth - first);
      chunk->words = g_renew (guint32, chunk->words, chunk->alloc_words);
    }
  w = chunk->words + chunk->n_words;
  *w++ = first;
  *w++ = depth;
  memcpy (w, r->pc.frames + first, sizeof (guint32) * (depth - first));
  chunk->n_words = w + (depth - first) - chunk->words;
  for (guint c = 0; c < r->n_columns; c++)
    {
      chunk->weights[chunk->n_lines * r->n_columns + c] = fl->counts[c] * r->header->factor;
      r->samples[c] += fl->counts[c];
    }
  chunk->n_lines++;

  r->prev = *fl;
  r->prev_depth = depth;
  return TRUE;
}

/* Reads every line of the file into chunks for the builder; FALSE with
 * @error set when cancelled or on a stack too large. */
static gboolean
read_lines (FoldedReader  *r,
            GError       **error)
{
  FlameInput *in = r->in;
  gsize pos = 0;
  gsize released = 0;

  while (pos < in->len)
    {
      FoldedLine fl;
      gsize line_len;
      const char *line;

      if (!flame_input_tick (in, pos, error))
        return FALSE;
      /* what lies before the previous line (which the next one is
       * compared with) is read for good, so its pages need not stay
       * resident beside the tree */
      if (G_UNLIKELY (r->prev.stack != NULL &&
                      (gsize) (r->prev.stack - in->data) >= released + RELEASE_STEP))
        {
          released = r->prev.stack - in->data;
          flame_mapped_release (in->data, released);
        }

      line = flame_next_line (in->data, in->len, &pos, &line_len);
      r->lineno++;
      if (is_comment_or_empty (line, line_len))
        continue;
      if (!parse_line (line, line_len, r->n_columns, &fl))
        {
          if (r->n_bad++ == 0)
            r->first_bad = r->lineno;
          continue;
        }
      if (!add_stack (r, &fl, error))
        return FALSE;
      r->n_valid++;
    }
  return TRUE;
}

/* The profile once every line is in its tree, or the error of a file
 * without a stack. */
static FlameProfile *
finish_folded (FoldedReader  *r,
               FlameProfile  *loaded,
               GError       **error)
{
  g_autoptr(FlameProfile) profile = loaded;

  if (r->n_valid == 0)
    {
      if (r->n_bad > 0)
        flame_input_set_error (r->in, error, FLAME_ERROR_PARSE, r->first_bad,
                               "not a folded stack line (%s); the file has no valid line",
                               r->is_pair ? "expected \"stack before after\""
                                          : "expected \"stack count\"");
      else
        flame_input_set_error (r->in, error, FLAME_ERROR_EMPTY, 0, "no stacks in the file");
      return NULL;
    }
  warn_skipped (profile, r->in, r->n_bad, r->first_bad);
  for (guint c = 0; c < r->n_columns; c++)
    flame_profile_add_samples (profile, c,
                               r->header->has_samples ? r->header->samples[c] : r->samples[c]);
  flame_profile_finish (profile);
  return g_steal_pointer (&profile);
}

/* The node arrays get room (address space only) for a node per 8
 * bytes, so that they never move as the tree grows: a new node takes at
 * least a name and a ';', and files of random stacks hold one per ~50
 * bytes. Typical collapsed files hold one node per 150–300 bytes; sizing
 * the index for that saves most of its regrowing. */
static void
reserve_tree (FlameTree *tree,
              gsize      len)
{
  flame_tree_set_huge_pages (tree, TRUE);
  flame_tree_reserve_space (tree, (guint32) MIN (len / 8, (gsize) G_MAXUINT32));
  flame_tree_reserve (tree, (guint32) MIN (len / 200, (gsize) 1 << 26));
  flame_tree_ensure_index (tree);
  /* the builder has every level's path hash (build_chunk()) */
  flame_tree_drop_hashes (tree);
}

/* Starts the builder: on its own thread when @n_threads > 1. */
static void
start_builder (FoldedReader  *r,
               FoldedBuilder *b,
               guint          n_threads)
{
  r->builder = b;
  r->chunk = stacks_chunk_new (r->chunk_words);
  r->n_chunks = 1;
  if (n_threads < 2)
    return;
  b->full = g_async_queue_new ();
  b->empty = g_async_queue_new_full (stacks_chunk_free);
  r->thread = g_thread_new ("flame-folded", builder_thread, b);
}

/* Sends the last chunk and waits for the builder. */
static void
stop_builder (FoldedReader  *r,
              FoldedBuilder *b)
{
  if (r->thread != NULL)
    {
      reader_flush (r, TRUE);
      g_thread_join (r->thread);
      g_async_queue_unref (b->full);
      g_async_queue_unref (b->empty);
    }
  else
    {
      reader_flush (r, TRUE);
      stacks_chunk_free (r->chunk);
    }
  r->chunk = NULL;
  g_free (b->nodes);
  g_free (b->hashes);
}

/**
 * flame_folded_load_threads:
 * @n_threads: 1: one thread reads the lines and builds the tree; 2 (or
 *   more): a second thread builds the tree from what the first read
 * @chunk_words: how much one thread hands the other at a time (words of
 *   4 bytes, 1 per frame and 2 per line); 0: the default
 *
 * flame_folded_load() with the number of threads given; the profile is
 * the same, node for node, for any number (tests compare them).
 */
FlameProfile *
flame_folded_load_threads (FlameInput  *in,
                           guint        n_threads,
                           gsize        chunk_words,
                           GError     **error)
{
  g_autoptr(FlameProfile) profile = NULL;
  FoldedHeader header = { 1.0, FALSE, { 0, 0 } };
  FoldedReader r = { 0 };
  FoldedBuilder b = { 0 };
  gboolean is_pair = FALSE;
  gboolean ok;
  gsize first_len, pos = 0;
  const char *first = flame_next_line (in->data, in->len, &pos, &first_len);

  flame_folded_sniff (in->data, in->len, &is_pair);
  if (!is_pair && flame_folded_is_cpython (in->data, in->len))
    return load_cpython (in, error);
  r.in = in;
  r.is_pair = is_pair;
  r.n_columns = is_pair ? 2 : 1;
  r.header = &header;
  r.chunk_words = MAX (chunk_words > 0 ? chunk_words : CHUNK_WORDS, 8);
  r.rust = g_string_new (NULL);
  profile = flame_profile_new (is_pair ? FLAME_FORMAT_FOLDED_PAIR : FLAME_FORMAT_FOLDED,
                               r.n_columns);
  flame_profile_set_path (profile, in->name);
  flame_profile_set_unit (profile, FLAME_UNIT_SAMPLES);
  if (is_comment_or_empty (first, first_len))
    parse_header (profile, first, first_len, &header);
  r.frames = flame_profile_get_frames (profile);
  b.tree = flame_profile_get_tree (profile);
  b.n_columns = r.n_columns;
  b.input_len = in->len;
  reserve_tree (b.tree, in->len);
  prefix_cache_reserve (&r.pc, 64);

  start_builder (&r, &b, n_threads);
  ok = read_lines (&r, error);
  stop_builder (&r, &b);
  prefix_cache_clear (&r.pc);
  g_string_free (r.rust, TRUE);
  if (!ok)
    return NULL;
  return finish_folded (&r, g_steal_pointer (&profile), error);
}

FlameProfile *
flame_folded_load (FlameInput  *in,
                   GError     **error)
{
  guint n = in->max_threads > 0 ? in->max_threads : g_get_num_processors ();

  return flame_folded_load_threads (in, in->len >= PIPELINE_MIN_BYTES ? n : 1, 0, error);
}
