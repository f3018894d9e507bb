/* flame-callgrind.c: the callgrind format (valgrind's callgrind tool,
 * also written by other tools): cost lines per function and call edges
 * with the callee's inclusive cost.
 *
 * The per-function figures follow callgrind_annotate exactly: a function
 * is a (file, name) pair, fi=/fe= switching the file; its self cost is
 * the sum of its cost lines; its inclusive cost is the sum of the costs
 * of all calls to it, or for a function nobody calls, its self cost plus
 * that of its calls. They go into the profile's function-weights table.
 *
 * The flame tree is only approximated from the call edges
 * (flame-callgraph.c).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-callgraph.h"
#include "flame-callgrind.h"
#include "flame-error.h"

#define MAX_EVENTS     64
#define MAX_POSITIONS  3
#define MAX_NAME_ID    ((guint64) 1 << 26)

enum { CTX_FILE, CTX_FN, CTX_OB, N_CTX };

typedef struct
{
  guint64 self;    /* the function's own cost lines */
  guint64 out;     /* self and the calls it makes */
  guint64 called;  /* the calls made to it */
  gboolean was_called;
} Function;

typedef struct
{
  FlameInput   *in;
  FlameProfile *profile;
  FlameFrames  *frames;
  FlameStrings *strings;
  guint64       line_no;

  GHashTable   *names[N_CTX];  /* compressed id -> string id */
  guint         n_pos;
  char        **events;
  guint         n_events;
  gint          event;         /* index of the event loaded */
  const char   *want_event;

  GArray       *functions;     /* Function, by frame: the exact figures */
  FlameCallGraph *graph;       /* for the tree */

  gboolean      have_file;
  guint32       file;          /* string id */
  gboolean      have_fn;
  guint32       fn;            /* string id of the current function's name */
  guint32       frame;         /* the current function */
  gboolean      have_cfile;
  guint32       cfile;
  gboolean      have_callee;
  guint32       callee;
  guint64       pending_calls;
  gboolean      have_costs;
} Callgrind;

static gboolean
fail (Callgrind   *cg,
      GError     **error,
      const char  *format,
      ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Callgrind   *cg,
      GError     **error,
      const char  *format,
      ...)
{
  va_list args;

  va_start (args, format);
  flame_input_set_errorv (cg->in, error, FLAME_ERROR_PARSE, cg->line_no, format, args);
  va_end (args);
  return FALSE;
}

static gboolean
has_prefix (const char *line,
            gsize       len,
            const char *prefix)
{
  gsize n = strlen (prefix);
  return len >= n && memcmp (line, prefix, n) == 0;
}

/* The format's first lines: "# callgrind format", "creator: callgrind"
 * or "positions:" (only callgrind writes them), or "version:"/"creator:"
 * keys and then "events:" within the header. */
gboolean
flame_callgrind_sniff (const char *data,
                       gsize       len)
{
  gsize pos = 0;
  gboolean marked = FALSE;

  len = MIN (len, (gsize) 16384);
  for (guint n = 0; n < 64 && pos < len; n++)
    {
      gsize line_len;
      const char *line = flame_next_line (data, len, &pos, &line_len);

      if (line_len == 0)
        continue;
      if (has_prefix (line, line_len, "# callgrind format") ||
          has_prefix (line, line_len, "creator: callgrind") ||
          has_prefix (line, line_len, "positions:"))
        return TRUE;
      if (has_prefix (line, line_len, "version: ") ||
          has_prefix (line, line_len, "creator: "))
        marked = TRUE;
      else if (has_prefix (line, line_len, "events:"))
        return marked;
      else if (line[0] != '#' && memchr (line, ':', line_len) == NULL)
        return FALSE;
    }
  return FALSE;
}

static Function *
function_at (Callgrind *cg,
             guint32    frame)
{
  if (frame >= cg->functions->len)
    g_array_set_size (cg->functions, frame + 1);
  return &g_array_index (cg->functions, Function, frame);
}

/* A name: "(id) name" defines a compressed name, "(id)" uses one, and
 * anything else ("(below main)" too) is the name itself. */
static gboolean
parse_name (Callgrind   *cg,
            guint        ctx,
            const char  *s,
            gsize        len,
            guint32     *out,
            GError     **error)
{
  gsize i = 1;
  guint64 id = 0;

  if (len > FLAME_MAX_NAME_LEN)
    return fail (cg, error, "a name of more than %d bytes", FLAME_MAX_NAME_LEN);

  if (len >= 3 && s[0] == '(' && g_ascii_isdigit (s[1]))
    {
      while (i < len && g_ascii_isdigit (s[i]) && id < MAX_NAME_ID)
        id = id * 10 + (s[i++] - '0');
      if (i < len && s[i] == ')')
        {
          if (id >= MAX_NAME_ID)
            return fail (cg, error, "compressed name id (%" G_GUINT64_FORMAT ") too large", id);
          for (i++; i < len && flame_is_blank (s[i]); i++)
            ;
          if (i == len)
            {
              gpointer value;

              if (!g_hash_table_lookup_extended (cg->names[ctx], GUINT_TO_POINTER ((guint) id),
                                                 NULL, &value))
                return fail (cg, error, "name (%" G_GUINT64_FORMAT ") is used before it is defined",
                             id);
              *out = GPOINTER_TO_UINT (value);
              return TRUE;
            }
          *out = flame_strings_intern (cg->strings, s + i, len - i);
          g_hash_table_insert (cg->names[ctx], GUINT_TO_POINTER ((guint) id),
                               GUINT_TO_POINTER (*out));
          return TRUE;
        }
    }
  *out = flame_strings_intern (cg->strings, s, len);
  return TRUE;
}

static guint32
function_frame (Callgrind *cg,
                guint32    file,
                guint32    name)
{
  guint32 frame = flame_frames_intern (cg->frames, name, file, 0, 0);
  function_at (cg, frame);
  return frame;
}

/* Up to @max blank-separated decimal numbers from @p; FALSE on anything
 * else. Numbers past @max are an error. */
static gboolean
parse_costs (Callgrind   *cg,
             const char  *p,
             const char  *end,
             guint64     *costs,
             guint        max,
             GError     **error)
{
  guint n = 0;

  memset (costs, 0, sizeof (guint64) * max);
  for (;;)
    {
      guint64 v = 0;
      const char *start;

      while (p < end && flame_is_blank (*p))
        p++;
      if (p == end)
        return TRUE;
      if (n == max)
        return fail (cg, error, "more costs than the %u events of the events: line", max);
      start = p;
      while (p < end && g_ascii_isdigit (*p))
        {
          if (v > (G_MAXUINT64 - 9) / 10)
            return fail (cg, error, "a cost beyond 64 bits");
          v = v * 10 + (guint64) (*p++ - '0');
        }
      if (p == start || (p < end && !flame_is_blank (*p)))
        return fail (cg, error, "“%.*s” is not a cost",
                     (int) MIN ((gsize) 40, (gsize) (end - start)), start);
      costs[n++] = v;
    }
}

/* A cost line: the positions ("12", "+3", "-1", "*", "0x4005d0"), then
 * one cost per event, missing ones 0. */
static gboolean
cost_line (Callgrind   *cg,
           const char  *line,
           gsize        len,
           GError     **error)
{
  const char *p = line, *end = line + len;
  guint64 costs[MAX_EVENTS];
  guint64 cost;

  if (cg->events == NULL)
    return fail (cg, error, "a cost line before the events: line");

  for (guint i = 0; i < cg->n_pos; i++)
    {
      const char *start;

      while (p < end && flame_is_blank (*p))
        p++;
      start = p;
      if (p < end && *p == '*')
        p++;
      else
        {
          gboolean hex = FALSE;

          if (p < end && (*p == '+' || *p == '-'))
            p++;
          else if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
            {
              p += 2;
              hex = TRUE;
            }
          while (p < end && (hex ? g_ascii_isxdigit (*p) : g_ascii_isdigit (*p)))
            p++;
          if (p == start || !g_ascii_isxdigit (p[-1]))
            return fail (cg, error, "expected %u position%s, then the costs",
                         cg->n_pos, cg->n_pos == 1 ? "" : "s");
        }
      if (p < end && !flame_is_blank (*p))
        return fail (cg, error, "“%.*s” is not a position",
                     (int) MIN ((gsize) 40, (gsize) (end - start)), start);
    }
  if (!parse_costs (cg, p, end, costs, cg->n_events, error))
    return FALSE;
  cost = costs[cg->event];

  if (!cg->have_fn)
    return fail (cg, error, "a cost line before any fn= line");
  cg->have_costs = TRUE;

  if (cg->pending_calls > 0)
    {
      /* the inclusive cost of the calls= line before */
      Function *callee = function_at (cg, cg->callee);
      Function *caller = function_at (cg, cg->frame);

      if (G_MAXUINT64 - callee->called < cost || G_MAXUINT64 - caller->out < cost)
        return fail (cg, error, "costs beyond 64 bits");
      callee->called += cost;
      callee->was_called = TRUE;
      caller->out += cost;
      flame_call_graph_add_call (cg->graph, cg->frame, cg->callee, cost);
      cg->pending_calls = 0;
      return TRUE;
    }
  else
    {
      Function *f = function_at (cg, cg->frame);
      if (G_MAXUINT64 - f->out < cost)
        return fail (cg, error, "costs beyond 64 bits");
      f->self += cost;
      f->out += cost;
      flame_call_graph_add_self (cg->graph, cg->frame, cost);
    }
  return TRUE;
}

static gboolean
events_line (Callgrind   *cg,
             const char  *value,
             gsize        len,
             GError     **error)
{
  g_autofree char *text = g_strndup (value, len);
  g_auto(GStrv) events = g_strsplit_set (text, " \t", -1);
  guint n = 0;

  /* drop the empty fields of repeated blanks */
  for (guint i = 0; events[i] != NULL; i++)
    if (events[i][0] != '\0')
      {
        char *e = events[i];
        events[i] = NULL;
        events[n++] = e;
      }
    else
      g_clear_pointer (&events[i], g_free);
  if (n == 0)
    return fail (cg, error, "an events: line that names no event");
  if (n > MAX_EVENTS)
    return fail (cg, error, "more than %d events", MAX_EVENTS);

  if (cg->events != NULL)
    {
      /* another part of a combined dump: it must count the same */
      if (n != cg->n_events)
        return fail (cg, error, "a part with other events than the first");
      for (guint i = 0; i < n; i++)
        if (strcmp (events[i], cg->events[i]) != 0)
          return fail (cg, error, "a part with other events than the first");
      return TRUE;
    }

  cg->events = g_steal_pointer (&events);
  cg->n_events = n;
  cg->event = -1;
  if (cg->want_event != NULL)
    {
      for (guint i = 0; i < n && cg->event < 0; i++)
        if (g_ascii_strcasecmp (cg->events[i], cg->want_event) == 0)
          cg->event = i;
      if (cg->event < 0)
        {
          g_autofree char *names = g_strjoinv (", ", cg->events);
          flame_input_set_error (cg->in, error, FLAME_ERROR_INVALID, 0,
                                 "no event “%s” (the file has: %s)", cg->want_event, names);
          return FALSE;
        }
    }
  else
    {
      /* Ir, as callgrind_annotate sorts by default, else the first */
      cg->event = 0;
      for (guint i = 0; i < n; i++)
        if (strcmp (cg->events[i], "Ir") == 0)
          cg->event = i;
    }
  return TRUE;
}

static gboolean
positions_line (Callgrind   *cg,
                const char  *value,
                gsize        len,
                GError     **error)
{
  guint n = 0;

  if (cg->have_costs)
    return fail (cg, error, "a positions: line after the first cost line");
  for (gsize i = 0; i < len; )
    {
      gsize start;

      while (i < len && flame_is_blank (value[i]))
        i++;
      if (i == len)
        break;
      start = i;
      while (i < len && !flame_is_blank (value[i]))
        i++;
      if (!((i - start == 4 && (memcmp (value + start, "line", 4) == 0 ||
                                memcmp (value + start, "addr", 4) == 0)) ||
            (i - start == 5 && memcmp (value + start, "instr", 5) == 0)))
        return fail (cg, error, "unknown position “%.*s” (expected line, instr or addr)",
                     (int) MIN ((gsize) 40, i - start), value + start);
      n++;
    }
  if (n == 0 || n > MAX_POSITIONS)
    return fail (cg, error, "a positions: line needs 1 to %d positions", MAX_POSITIONS);
  cg->n_pos = n;
  return TRUE;
}

/* "key: value" header lines; the body may repeat them for a new part. */
static gboolean
header_line (Callgrind   *cg,
             const char  *key,
             gsize        key_len,
             const char  *value,
             gsize        len,
             GError     **error)
{
#define KEY(k) (key_len == sizeof (k) - 1 && memcmp (key, k, key_len) == 0)
  while (len > 0 && flame_is_blank (*value))
    value++, len--;

  if (KEY ("events"))
    return events_line (cg, value, len, error);
  if (KEY ("positions"))
    return positions_line (cg, value, len, error);
  if (KEY ("version"))
    {
      if (len == 0 || !g_ascii_isdigit (value[0]) || (value[0] != '0' && value[0] != '1') ||
          (len > 1 && g_ascii_isdigit (value[1])))
        {
          flame_input_set_error (cg->in, error, FLAME_ERROR_UNSUPPORTED, cg->line_no,
                                 "callgrind format version %.*s (Flamediff reads 1)",
                                 (int) MIN (len, (gsize) 20), value);
          return FALSE;
        }
      return TRUE;
    }
  if (KEY ("cmd") || KEY ("creator") || KEY ("pid"))
    {
      g_autofree char *k = g_strndup (key, key_len);
      g_autofree char *v = g_strndup (value, MIN (len, (gsize) 4096));
      if (flame_profile_get_metadata (cg->profile, k) == NULL)
        flame_profile_set_metadata (cg->profile, k, v);
      return TRUE;
    }
  if (KEY ("summary") || KEY ("totals"))
    {
      guint64 costs[MAX_EVENTS];
      g_autofree char *k = g_strndup (key, key_len);
      g_autofree char *v = NULL;

      if (cg->events == NULL)
        return fail (cg, error, "a %s: line before the events: line", k);
      if (!parse_costs (cg, value, value + len, costs, cg->n_events, error))
        return FALSE;
      v = g_strdup_printf ("%" G_GUINT64_FORMAT, costs[cg->event]);
      flame_profile_set_metadata (cg->profile, k, v);
      return TRUE;
    }
  if (KEY ("part") || KEY ("desc") || KEY ("thread") || KEY ("event") ||
      KEY ("timeframe (BB)") || KEY ("trigger"))
    return TRUE;
#undef KEY
  return fail (cg, error, "unknown line “%.*s:”", (int) MIN (key_len, (gsize) 40), key);
}

/* "key=value" body lines */
static gboolean
spec_line (Callgrind   *cg,
           const char  *key,
           gsize        key_len,
           const char  *value,
           gsize        len,
           GError     **error)
{
#define KEY(k) (key_len == sizeof (k) - 1 && memcmp (key, k, key_len) == 0)
  guint32 id;

  if (KEY ("fn"))
    {
      if (!parse_name (cg, CTX_FN, value, len, &cg->fn, error))
        return FALSE;
      cg->have_fn = TRUE;
      cg->frame = function_frame (cg, cg->have_file ? cg->file : 0, cg->fn);
      return TRUE;
    }
  if (KEY ("fl"))
    {
      if (!parse_name (cg, CTX_FILE, value, len, &cg->file, error))
        return FALSE;
      cg->have_file = TRUE;
      return TRUE;
    }
  if (KEY ("fi") || KEY ("fe"))
    {
      /* inlined code from another file: callgrind_annotate counts it to
       * (that file, the function) */
      if (!cg->have_fn)
        return fail (cg, error, "an %.2s= line before any fn= line", key);
      if (!parse_name (cg, CTX_FILE, value, len, &cg->file, error))
        return FALSE;
      cg->have_file = TRUE;
      cg->frame = function_frame (cg, cg->file, cg->fn);
      return TRUE;
    }
  if (KEY ("cfi") || KEY ("cfl"))
    {
      if (!parse_name (cg, CTX_FILE, value, len, &cg->cfile, error))
        return FALSE;
      cg->have_cfile = TRUE;
      return TRUE;
    }
  if (KEY ("cfn"))
    {
      guint32 file = cg->have_cfile ? cg->cfile : cg->have_file ? cg->file : 0;

      if (!parse_name (cg, CTX_FN, value, len, &id, error))
        return FALSE;
      cg->callee = function_frame (cg, file, id);
      cg->have_callee = TRUE;
      cg->have_cfile = FALSE;
      return TRUE;
    }
  if (KEY ("calls"))
    {
      guint64 n = 0;
      gsize i = 0;

      while (i < len && g_ascii_isdigit (value[i]) && n < G_MAXUINT64 / 10)
        n = n * 10 + (guint64) (value[i++] - '0');
      if (i == 0 || (i < len && !flame_is_blank (value[i])))
        return fail (cg, error, "a calls= line without a call count");
      if (!cg->have_callee)
        return fail (cg, error, "a calls= line before any cfn= line");
      if (!cg->have_fn)
        return fail (cg, error, "a calls= line before any fn= line");
      /* callgrind_annotate takes calls=0 for no call at all */
      cg->pending_calls = n;
      return TRUE;
    }
  if (KEY ("ob") || KEY ("cob"))
    return parse_name (cg, CTX_OB, value, len, &id, error);
  if (KEY ("jfi"))
    return parse_name (cg, CTX_FILE, value, len, &id, error);
  if (KEY ("jfn"))
    return parse_name (cg, CTX_FN, value, len, &id, error);
  if (KEY ("jump") || KEY ("jcnd"))
    return TRUE;  /* jumps are not costs */
#undef KEY
  return fail (cg, error, "unknown line “%.*s=”", (int) MIN (key_len, (gsize) 40), key);
}

static gboolean
parse (Callgrind   *cg,
       GError     **error)
{
  FlameInput *in = cg->in;
  gsize pos = 0;

  while (pos < in->len)
    {
      gsize line_len, key_len;
      const char *line = flame_next_line (in->data, in->len, &pos, &line_len);
      char c;

      cg->line_no++;
      if (!flame_input_tick (in, pos, error))
        return FALSE;
      while (line_len > 0 && flame_is_blank (*line))
        line++, line_len--;
      if (line_len == 0 || line[0] == '#')
        continue;

      c = line[0];
      if (g_ascii_isdigit (c) || c == '+' || c == '-' || c == '*')
        {
          if (!cost_line (cg, line, line_len, error))
            return FALSE;
          continue;
        }

      for (key_len = 0; key_len < line_len && key_len < 40; key_len++)
        {
          c = line[key_len];
          if (!(g_ascii_isalnum (c) || c == ' ' || c == '(' || c == ')'))
            break;
        }
      if (key_len > 0 && key_len < line_len && line[key_len] == '=')
        {
          if (!spec_line (cg, line, key_len, line + key_len + 1, line_len - key_len - 1, error))
            return FALSE;
        }
      else if (key_len > 0 && key_len < line_len && line[key_len] == ':')
        {
          if (!header_line (cg, line, key_len, line + key_len + 1, line_len - key_len - 1, error))
            return FALSE;
        }
      else
        return fail (cg, error, "not a line of the callgrind format");
    }

  if (cg->events == NULL)
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0, "no events: line");
      return FALSE;
    }
  return TRUE;
}

/**
 * flame_callgrind_load:
 * @options: (nullable): options->sample_type names the event to load
 *   (as pprof's sample type); default Ir, else the first event
 */
FlameProfile *
flame_callgrind_load (FlameInput              *in,
                      const FlameLoadOptions  *options,
                      GError                 **error)
{
  g_autoptr(FlameProfile) profile = flame_profile_new (FLAME_FORMAT_CALLGRIND, 1);
  Callgrind cg = { 0 };
  gboolean ok;
  guint64 total = 0;

  cg.in = in;
  cg.profile = profile;
  cg.frames = flame_profile_get_frames (profile);
  cg.strings = flame_frames_get_strings (cg.frames);
  cg.n_pos = 1;  /* "positions: line" by default */
  cg.want_event = options != NULL ? options->sample_type : NULL;
  for (guint i = 0; i < N_CTX; i++)
    cg.names[i] = g_hash_table_new (NULL, NULL);
  cg.functions = g_array_new (FALSE, TRUE, sizeof (Function));
  cg.graph = flame_call_graph_new ();

  ok = parse (&cg, error);
  if (ok)
    {
      Function *fns = (Function *) (void *) cg.functions->data;

      for (guint f = 0; f < cg.functions->len; f++)
        total += fns[f].self;
      if (total == 0)
        {
          flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                                 "no %s cost in the file", cg.events[cg.event]);
          ok = FALSE;
        }
    }
  if (ok)
    ok = flame_call_graph_build_tree (cg.graph, profile, in, error);
  if (ok)
    {
      Function *fns = (Function *) (void *) cg.functions->data;
      g_autofree char *events = g_strjoinv (" ", cg.events);

      for (guint32 f = 0; f < cg.functions->len; f++)
        {
          guint64 incl = fns[f].was_called ? fns[f].called : fns[f].out;
          if (fns[f].self > 0 || incl > 0)
            flame_profile_set_function_weights (profile, 0, f, fns[f].self, incl);
        }
      /* instruction and other event counts are counts, not time */
      flame_profile_set_unit (profile, FLAME_UNIT_COUNT);
      flame_profile_set_event (profile, cg.events[cg.event]);
      flame_profile_set_metadata (profile, "sample-type", cg.events[cg.event]);
      flame_profile_set_metadata (profile, "events", events);
      flame_profile_set_sample_types (profile, (const char * const *) cg.events);
      flame_profile_finish (profile);
    }

  for (guint i = 0; i < N_CTX; i++)
    g_hash_table_unref (cg.names[i]);
  g_array_unref (cg.functions);
  flame_call_graph_free (cg.graph);
  g_strfreev (cg.events);
  return ok ? g_steal_pointer (&profile) : NULL;
}
