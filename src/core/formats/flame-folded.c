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
  guint64 whole = 0;
  gdouble frac = 0;
  guint n_int = 0;

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

  for (const char *q = p; q < (dot ? dot : end); q++)
    n_int++;
  if (n_int > 15)
    {
      /* past 10^15 a double cannot hold every integer anyway */
      *value = g_ascii_strtod (p, NULL);
      return p;
    }
  for (const char *q = p; q < (dot ? dot : end); q++)
    whole = whole * 10 + (guint64) (*q - '0');
  if (dot != NULL)
    {
      gdouble scale = 0.1;
      for (const char *q = dot + 1; q < end; q++, scale *= 0.1)
        frac += (*q - '0') * scale;
    }
  *value = (gdouble) whole + frac;
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
      gsize start = 0;
      gint64 tid = -1;
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

      g_array_set_size (ids, 0);
      hidden = FALSE;
      while (start <= fl.stack_len)
        {
          const char *f = fl.stack + start;
          const char *semi = memchr (f, ';', fl.stack_len - start);
          gsize flen = semi ? (gsize) (semi - f) : fl.stack_len - start;
          const char *colon = memchr (f, ':', flen);
          guint32 id;

          if (G_UNLIKELY (flen > FLAME_MAX_NAME_LEN))
            {
              flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, lineno,
                                     "a frame name is longer than %d bytes",
                                     FLAME_MAX_NAME_LEN);
              return NULL;
            }
          if (G_UNLIKELY (ids->len >= FLAME_MAX_DEPTH))
            {
              flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, lineno,
                                     "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
              return NULL;
            }
          if (start == 0 && is_tid_frame (f, flen, &tid))
            {
              start += flen + 1;
              continue;
            }
          if (colon != NULL && flame_cpython_is_internal_file (f, colon - f))
            {
              hidden = TRUE;
              start += flen + 1;
              continue;
            }
          id = intern_cpython_frame (profile, f, flen);
          g_array_append_val (ids, id);
          start += flen + 1;
        }

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
  if (n_bad > 0)
    flame_profile_add_warning (profile,
                               "%s: skipped %" G_GUINT64_FORMAT " line%s that %s not "
                               "folded stacks (first at line %" G_GUINT64_FORMAT ")",
                               in->name, n_bad, n_bad == 1 ? "" : "s",
                               n_bad == 1 ? "is" : "are", first_bad);
  flame_profile_finish (profile);
  return g_steal_pointer (&profile);
}

/* The current stack, frame by frame: kept for the next line, which
 * reuses the part it shares (see flame_folded_load()). */
typedef struct
{
  gsize   *ends;    /* offset of the ';' (or the end) after frame k */
  guint32 *names;   /* flame_strings_hash() of frame k's name */
  guint32 *frames;  /* frame id of frame k */
  guint32 *hashes;  /* path hash of frame k's node (flame_tree_path_hash) */
  guint32 *nodes;   /* tree node of frame k */
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
  pc->hashes = g_renew (guint32, pc->hashes, pc->alloc);
  pc->nodes = g_renew (guint32, pc->nodes, pc->alloc);
}

static void
prefix_cache_clear (PrefixCache *pc)
{
  g_free (pc->ends);
  g_free (pc->names);
  g_free (pc->frames);
  g_free (pc->hashes);
  g_free (pc->nodes);
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

FlameProfile *
flame_folded_load (FlameInput  *in,
                   GError     **error)
{
  g_autoptr(FlameProfile) profile = NULL;
  PrefixCache pc = { 0 };
  FlameFrames *frames;
  FlameTree *tree;
  gboolean is_pair = FALSE;
  guint n_columns;
  const char *prev = NULL;
  gsize prev_len = 0;
  guint prev_depth = 0;
  guint64 lineno = 0;
  guint64 n_valid = 0;
  guint64 n_bad = 0;
  guint64 first_bad = 0;
  const char *bad_reason = NULL;
  gsize pos = 0;
  gsize released = 0;
  FoldedHeader header = { 1.0, FALSE, { 0, 0 } };
  g_autoptr(GString) rust = g_string_new (NULL);

  flame_folded_sniff (in->data, in->len, &is_pair);
  if (!is_pair && flame_folded_is_cpython (in->data, in->len))
    return load_cpython (in, error);
  n_columns = is_pair ? 2 : 1;
  profile = flame_profile_new (is_pair ? FLAME_FORMAT_FOLDED_PAIR : FLAME_FORMAT_FOLDED,
                               n_columns);
  flame_profile_set_path (profile, in->name);
  flame_profile_set_unit (profile, FLAME_UNIT_SAMPLES);
  frames = flame_profile_get_frames (profile);
  tree = flame_profile_get_tree (profile);
  prefix_cache_reserve (&pc, 64);
  /* The node arrays get room (address space only) for a node per 8
   * bytes, so that they never move as the tree grows: a new node takes
   * at least a name and a ';', and files of random stacks hold one per
   * ~50 bytes. Typical collapsed files hold one node per 150–300 bytes;
   * sizing the index for that saves most of its regrowing. */
  flame_tree_set_huge_pages (tree, TRUE);
  flame_tree_reserve_space (tree, (guint32) MIN (in->len / 8, (gsize) G_MAXUINT32));
  flame_tree_reserve (tree, (guint32) MIN (in->len / 200, (gsize) 1 << 26));
  flame_tree_ensure_index (tree);

  while (pos < in->len)
    {
      FoldedLine fl;
      gsize line_len;
      const char *line;
      gsize shared_len;
      guint depth;
      guint first;
      guint32 node;
      gsize start;

      if (!flame_input_tick (in, pos, error))
        goto fail;
      /* one pass, front to back: what lies before the previous line
       * (which the next one is compared with) is read for good, so its
       * pages need not stay resident beside the tree */
      if (G_UNLIKELY (prev != NULL && (gsize) (prev - in->data) >= released + RELEASE_STEP))
        {
          released = prev - in->data;
          flame_mapped_release (in->data, released);
        }

      line = flame_next_line (in->data, in->len, &pos, &line_len);
      lineno++;
      if (is_comment_or_empty (line, line_len))
        {
          if (lineno == 1)
            parse_header (profile, line, line_len, &header);
          continue;
        }

      if (!parse_line (line, line_len, n_columns, &fl))
        {
          if (n_bad++ == 0)
            {
              first_bad = lineno;
              bad_reason = is_pair ? "expected \"stack before after\"" : "expected \"stack count\"";
            }
          continue;
        }

      /* Stacks that share a prefix with the previous line (sorted output,
       * or the same stack again) reuse its nodes: only the frames after
       * the first difference are looked up. */
      depth = 0;
      node = FLAME_TREE_ROOT;
      start = 0;
      if (prev != NULL)
        {
          shared_len = common_prefix (prev, fl.stack, MIN (prev_len, fl.stack_len));
          if (shared_len == prev_len && shared_len == fl.stack_len)
            {
              depth = prev_depth;
              node = pc.nodes[depth - 1];
              start = fl.stack_len + 1;
            }
          else
            {
              /* frame k is shared when the previous stack has a ';' after
               * it inside the common prefix, or ends there while the
               * current stack goes on with a ';' */
              while (depth < prev_depth &&
                     (pc.ends[depth] < shared_len ||
                      (pc.ends[depth] == shared_len && shared_len == prev_len &&
                       shared_len < fl.stack_len && fl.stack[shared_len] == ';')))
                depth++;
              if (depth > 0)
                {
                  node = pc.nodes[depth - 1];
                  start = pc.ends[depth - 1] + 1;
                }
            }
        }

      /* The rest goes in three passes, so that the hash-table lookups of
       * one pass do not wait for each other: in shuffled files, where
       * lines share little with the line before, nearly every lookup
       * misses the CPU caches. (1) Split the frames and hash their
       * names, then prefetch where the names are interned; (2) intern
       * them, and prefetch where each level's node sits in the tree
       * index (a node's path hash follows from the frames alone, not
       * from the parent's node); (3) walk down the tree. Strings, frames
       * and nodes are created in the same order as one frame at a time
       * would create them. */
      first = depth;
      while (start <= fl.stack_len)
        {
          const char *f = fl.stack + start;
          const char *semi = memchr (f, ';', fl.stack_len - start);
          gsize flen = semi ? (gsize) (semi - f) : fl.stack_len - start;

          if (G_UNLIKELY (flen > FLAME_MAX_NAME_LEN))
            {
              flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, lineno,
                                     "a frame name is longer than %d bytes",
                                     FLAME_MAX_NAME_LEN);
              goto fail;
            }
          if (G_UNLIKELY (depth >= FLAME_MAX_DEPTH))
            {
              flame_input_set_error (in, error, FLAME_ERROR_TOO_LARGE, lineno,
                                     "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
              goto fail;
            }

          prefix_cache_reserve (&pc, depth + 1);
          pc.ends[depth] = start + flen;
          pc.names[depth] = flame_strings_hash (f, flen);
          depth++;
          start += flen + 1;
        }
      flame_frames_prefetch_names (frames, pc.names + first, depth - first);

      for (guint d = first; d < depth; d++)
        {
          gsize fstart = d == 0 ? 0 : pc.ends[d - 1] + 1;

          /* Rust legacy names as the perf script loader names them
           * (stackcollapse-perf.pl leaves them half demangled) */
          if (G_UNLIKELY (flame_names_rust_legacy (fl.stack + fstart, pc.ends[d] - fstart, rust)))
            pc.frames[d] = flame_frames_intern_name (frames, rust->str, rust->len);
          else
            pc.frames[d] = flame_frames_intern_name_hashed (frames, fl.stack + fstart,
                                                            pc.ends[d] - fstart, pc.names[d]);
          pc.hashes[d] = flame_tree_path_hash (d == 0 ? FLAME_TREE_ROOT_HASH : pc.hashes[d - 1],
                                               pc.frames[d], d + 1);
          flame_tree_prefetch (tree, pc.hashes[d]);
        }

      for (guint d = first; d < depth; d++)
        {
          node = flame_tree_child_hashed (tree, node, pc.frames[d], pc.hashes[d]);
          pc.nodes[d] = node;
        }

      prev = fl.stack;
      prev_len = fl.stack_len;
      prev_depth = depth;

      for (guint c = 0; c < n_columns; c++)
        {
          tree->self[c][node] += fl.counts[c] * header.factor;
          if (!header.has_samples)
            flame_profile_add_samples (profile, c, fl.counts[c]);
        }
      n_valid++;
    }

  prefix_cache_clear (&pc);

  if (n_valid == 0)
    {
      if (n_bad > 0)
        flame_input_set_error (in, error, FLAME_ERROR_PARSE, first_bad,
                               "not a folded stack line (%s); the file has no valid line",
                               bad_reason);
      else
        flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0, "no stacks in the file");
      return NULL;
    }
  if (n_bad > 0)
    flame_profile_add_warning (profile,
                               "%s: skipped %" G_GUINT64_FORMAT " line%s that %s not "
                               "folded stacks (first at line %" G_GUINT64_FORMAT ")",
                               in->name, n_bad, n_bad == 1 ? "" : "s",
                               n_bad == 1 ? "is" : "are", first_bad);
  if (header.has_samples)
    for (guint c = 0; c < n_columns; c++)
      flame_profile_add_samples (profile, c, header.samples[c]);

  flame_profile_finish (profile);
  return g_steal_pointer (&profile);

fail:
  prefix_cache_clear (&pc);
  return NULL;
}
