/* flame-perf.c: `perf script` text, collapsed the way stackcollapse-perf.pl
 * and inferno-collapse-perf do it.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A record is an event line followed by stack lines, leaf first, and ends
 * at a blank line:
 *
 *   java 24636/25607 [000] 4794564.109216:     104345 cycles:uppp:
 *           7f722d142778 Ljava/io/PrintStream;::print+0x5c (/tmp/perf-19982.map)
 *           ...
 *
 * The rules follow inferno where the two reference tools differ (event
 * names without modifiers, single-line stacks, records without frames are
 * dropped, argument lists cut at the first top-level parenthesis), and
 * stackcollapse-perf.pl where inferno only lags behind it (quotes removed,
 * the Java `L` prefix removed whenever comm starts with "java").
 *
 * Everything is scanned in place with memchr and pointer walks; names are
 * built in one reusable buffer, so the hot path does not allocate.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-error.h"
#include "flame-json-write.h"
#include "flame-names.h"
#include "flame-perf.h"
#include "flame-perf-private.h"
#include "flame-perfdata.h"

/* How many comment or blank lines the sniffer skips before giving up:
 * `perf script --header` writes a few dozen. */
#define SNIFF_MAX_SKIPPED 4096
#define SNIFF_LINES       64

static inline gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

static inline gboolean
is_hex (char c)
{
  return is_digit (c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline gboolean
has_prefix (const char *s,
            gsize       len,
            const char *prefix)
{
  gsize n = strlen (prefix);
  return len >= n && memcmp (s, prefix, n) == 0;
}

static inline gboolean
has_suffix (const char *s,
            gsize       len,
            const char *suffix)
{
  gsize n = strlen (suffix);
  return len >= n && memcmp (s + len - n, suffix, n) == 0;
}

static inline gboolean
equals (const char *s,
        gsize       len,
        const char *literal)
{
  return len == strlen (literal) && memcmp (s, literal, len) == 0;
}

static const char *
find_bytes (const char *s,
            gsize       len,
            const char *needle,
            gsize       needle_len)
{
  const char *end = s + len;

  while (len >= needle_len)
    {
      const char *p = memchr (s, needle[0], len - needle_len + 1);
      if (p == NULL)
        return NULL;
      if (memcmp (p, needle, needle_len) == 0)
        return p;
      s = p + 1;
      len = end - s;
    }
  return NULL;
}

/* Digits to a number; past 18 digits precision no longer matters. */
static gdouble
parse_uint (const char *s,
            const char *end)
{
  guint64 v = 0;
  gdouble d;
  guint n = 0;

  for (; s < end && n < 18; s++, n++)
    v = v * 10 + (guint64) (*s - '0');
  d = (gdouble) v;
  for (; s < end; s++)
    d *= 10;
  return d;
}

static gboolean
all_digits (const char *s,
            const char *end)
{
  if (s == end)
    return FALSE;
  for (; s < end; s++)
    if (!is_digit (*s))
      return FALSE;
  return TRUE;
}

/* "tid" or "pid/tid" */
static gboolean
is_pid_tid_word (const char  *w,
                 const char  *end,
                 const char **slash)
{
  const char *s = memchr (w, '/', end - w);

  *slash = s;
  if (s == NULL)
    return all_digits (w, end);
  return all_digits (w, s) && all_digits (s + 1, end);
}

/* "[003]" */
static gboolean
is_cpu_word (const char *w,
             const char *end)
{
  return end - w >= 3 && w[0] == '[' && end[-1] == ']' && all_digits (w + 1, end - 1);
}

/* "158665.570607:" */
static gboolean
is_time_word (const char *w,
              const char *end)
{
  gboolean dot = FALSE;

  if (end - w < 2 || end[-1] != ':' || !is_digit (w[0]))
    return FALSE;
  for (const char *p = w; p < end - 1; p++)
    {
      if (*p == '.' && !dot)
        dot = TRUE;
      else if (!is_digit (*p))
        return FALSE;
    }
  return TRUE;
}

typedef struct
{
  const char *comm;
  gsize       comm_len;
  gint64      pid;            /* -1: none printed */
  gint64      tid;
  const char *pid_str;        /* as printed, for the collapsed root frame */
  gsize       pid_len;
  const char *tid_str;
  gsize       tid_len;
  gdouble     time;           /* < 0: none printed */
  gboolean    has_period;
  gdouble     period;
  const char *event;          /* without modifiers ("cycles"); NULL: none */
  gsize       event_len;
  const char *event_full;     /* as printed ("cycles:uppp") */
  gsize       event_full_len;
  const char *rest;           /* a one-frame stack on the event line */
  gsize       rest_len;
} EventLine;

static gint64
parse_id (const char *s,
          const char *end)
{
  /* 18 digits fit in a gint64; longer ids are not real ones anyway */
  return end - s > 18 ? G_MAXINT64 : (gint64) parse_uint (s, end);
}

/* perf appends modifiers to the event name ("cycles:uppp",
 * "cpu-clock:uhH"); inferno compares names without them, so a file mixing
 * "cycles:u" and "cycles" records is one event. Tracepoints keep their
 * group ("sched:sched_switch"): only a suffix made of modifier letters
 * goes. */
static gsize
event_base_len (const char *name,
                gsize       len)
{
  const char *colon = memchr (name, ':', len);

  if (colon == NULL || colon + 1 == name + len)
    return colon ? (gsize) (colon - name) : len;
  for (const char *p = colon + 1; p < name + len; p++)
    if (strchr ("ukhIGHpPSDWeb", *p) == NULL || *p == 0)
      return len;
  return colon - name;
}

/* The [pid/]tid word of an event line: [w, end), slash at the '/' or NULL */
typedef struct
{
  const char *w;
  const char *end;
  const char *slash;
} IdWord;

/* The first all-digit word after a non-empty comm starting at @comm_start */
static gboolean
find_id_word (const char *comm_start,
              const char *end,
              IdWord     *id)
{
  const char *p = comm_start;

  while (p < end)
    {
      const char *word = p;
      const char *s;

      while (p < end && !flame_is_blank (*p))
        p++;
      if (word > comm_start && is_pid_tid_word (word, p, &s))
        {
          id->w = word;
          id->end = p;
          id->slash = s;
          return TRUE;
        }
      while (p < end && flame_is_blank (*p))
        p++;
    }
  return FALSE;
}

/* A comm ending in a number ("Worker 2 31337 [001] 1.5: cycles:") would
 * stop at "2"; prefer a later all-digit word when it is the one that a
 * [cpu] or a time: follows. */
static void
prefer_later_id_word (const char *end,
                      IdWord     *id)
{
  for (;;)
    {
      const char *q = id->end, *n, *n_end, *n_slash, *m, *m_end;

      while (q < end && flame_is_blank (*q))
        q++;
      n = q;
      while (q < end && !flame_is_blank (*q))
        q++;
      n_end = q;
      if (n == n_end || !is_pid_tid_word (n, n_end, &n_slash))
        break;
      while (q < end && flame_is_blank (*q))
        q++;
      m = q;
      while (q < end && !flame_is_blank (*q))
        q++;
      m_end = q;
      if (!is_cpu_word (m, m_end) && !is_time_word (m, m_end))
        break;
      /* ...unless the word after the current one is already one of those */
      if (is_cpu_word (n, n_end) || is_time_word (n, n_end))
        break;
      id->w = n;
      id->end = n_end;
      id->slash = n_slash;
    }
}

/* The comm before @id, and the pid and tid of @id */
static void
set_comm_and_ids (EventLine    *ev,
                  const char   *comm_start,
                  const IdWord *id)
{
  const char *comm_end = id->w;

  while (comm_end > comm_start && flame_is_blank (comm_end[-1]))
    comm_end--;
  ev->comm = comm_start;
  ev->comm_len = comm_end - comm_start;
  if (id->slash != NULL)
    {
      ev->pid_str = id->w;
      ev->pid_len = id->slash - id->w;
      ev->pid = parse_id (id->w, id->slash);
      ev->tid_str = id->slash + 1;
      ev->tid_len = id->end - (id->slash + 1);
      ev->tid = parse_id (id->slash + 1, id->end);
    }
  else
    {
      ev->pid = -1;
      ev->tid_str = id->w;
      ev->tid_len = id->end - id->w;
      ev->tid = parse_id (id->w, id->end);
    }
}

/* After the [pid/]tid, from @p: [cpu] time: period event: [one-frame stack] */
static void
parse_event_fields (EventLine  *ev,
                    const char *p,
                    const char *end)
{
  while (p < end)
    {
      const char *word;

      while (p < end && flame_is_blank (*p))
        p++;
      if (p == end)
        break;
      word = p;
      while (p < end && !flame_is_blank (*p))
        p++;

      if (is_cpu_word (word, p))
        continue;
      if (ev->time < 0 && !ev->has_period && is_time_word (word, p))
        {
          ev->time = flame_parse_decimal (word, p - 1);
          continue;
        }
      if (!ev->has_period && all_digits (word, p))
        {
          ev->has_period = TRUE;
          ev->period = parse_uint (word, p);
          continue;
        }
      if (memchr (word, ':', p - word) != NULL)
        {
          const char *name_end = p;

          /* "cycles:u:" → "cycles:u"; a stack may follow after blanks */
          if (name_end[-1] == ':')
            name_end--;
          ev->event_full = word;
          ev->event_full_len = name_end - word;
          ev->event = word;
          ev->event_len = event_base_len (word, name_end - word);
          while (p < end && flame_is_blank (*p))
            p++;
          if (p < end)
            {
              ev->rest = p;
              ev->rest_len = end - p;
            }
        }
      break;
    }
}

/* Finds the comm, [pid/]tid, optional [cpu], time, period and event of an
 * event line. The [pid/]tid is the first all-digit word after a non-empty
 * comm (comm may contain spaces: "V8 WorkerThread 25607 ..."). Blanks are
 * spaces or TABs (Android simpleperf separates fields with TABs). */
static gboolean
parse_event_line (const char *line,
                  gsize       len,
                  EventLine  *ev)
{
  const char *end = line + len;
  const char *comm_start = line;
  IdWord id;

  memset (ev, 0, sizeof *ev);
  ev->time = -1;

  while (comm_start < end && flame_is_blank (*comm_start))
    comm_start++;
  if (!find_id_word (comm_start, end, &id))
    return FALSE;
  prefer_later_id_word (end, &id);
  set_comm_and_ids (ev, comm_start, &id);
  parse_event_fields (ev, id.end, end);
  return TRUE;
}

typedef struct
{
  const char *pc;
  gsize       pc_len;
  const char *sym;
  gsize       sym_len;
  const char *dso;
  gsize       dso_len;
} StackLine;

/* "  7f1e2215d058 symbol+0x1c (dso)". The dso may hold spaces and
 * parentheses ("/tmp/x (deleted)"), so it is the balanced group that ends
 * the line. */
static gboolean
parse_stack_line (const char *line,
                  gsize       len,
                  StackLine  *sl)
{
  const char *end = line + len;
  const char *p = line;
  const char *q;
  const char *s, *s_end;
  int depth = 0;

  while (p < end && flame_is_blank (*p))
    p++;
  sl->pc = p;
  while (p < end && !flame_is_blank (*p))
    p++;
  sl->pc_len = p - sl->pc;
  if (p == end || sl->pc_len == 0 || end[-1] != ')')
    return FALSE;

  for (q = end - 1; q >= p; q--)
    {
      if (*q == ')')
        depth++;
      else if (*q == '(' && --depth == 0)
        break;
    }
  if (q < p || depth != 0 || !flame_is_blank (q[-1]))
    return FALSE;

  sl->dso = q + 1;
  sl->dso_len = (end - 1) - (q + 1);

  s = p;
  s_end = q;
  while (s < s_end && flame_is_blank (*s))
    s++;
  while (s_end > s && flame_is_blank (s_end[-1]))
    s_end--;
  if (s == s_end)
    {
      /* "7f1e2215d058  (/lib/libc-2.15.so)": both tools print " " */
      sl->sym = " ";
      sl->sym_len = 1;
    }
  else
    {
      sl->sym = s;
      sl->sym_len = s_end - s;
    }
  return TRUE;
}

/* inferno's matcher: "[kernel.kallsyms]", "[nf_conntrack_ipv4]", "x.ko",
 * ".../vmlinux-5.4.14-cloudflare" but not "[unknown]" */
static gboolean
is_kernel_dso (const char *dso,
               gsize       len)
{
  const char *vm = NULL;

  if (equals (dso, len, "[unknown]"))
    return FALSE;
  if (len > 0 && dso[0] == '[')
    return TRUE;
  if (has_suffix (dso, len, ".ko"))
    return TRUE;
  for (const char *p = dso; (p = find_bytes (p, len - (p - dso), "vmlinux", 7)) != NULL; p++)
    vm = p;
  if (vm == NULL)
    return FALSE;
  for (const char *p = vm; p < dso + len; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '.' && *p != '_')
      return FALSE;
  return TRUE;
}

/* perf map files of perf-map-agent, V8 --perf-basic-prof and friends */
static gboolean
is_perf_map (const char *dso,
             gsize       len)
{
  return has_prefix (dso, len, "/tmp/perf-") && has_suffix (dso, len, ".map");
}

/* perf inject --jit writes each function to a jitted-PID-N.so */
static gboolean
is_jit_dso (const char *dso,
            gsize       len)
{
  return is_perf_map (dso, len) ||
         (find_bytes (dso, len, "/jitted-", 8) != NULL && has_suffix (dso, len, ".so"));
}

/* Where the argument list starts: the first '(' outside <>, [] and {}
 * (so "std::function<int (int, int)>::operator()" keeps its template),
 * except Go's ".(*T)" and C++'s "(anonymous namespace)". */
static gsize
args_start (const char *s,
            gsize       len)
{
  int depth = 0;
  gsize last_dot = G_MAXSIZE;

  for (gsize i = 0; i < len; i++)
    {
      switch (s[i])
        {
        case '<':
        case '{':
        case '[':
          depth++;
          break;
        case '>':
        case '}':
        case ']':
        case ')':
          depth--;
          break;
        case '(':
          if (depth == 0 && last_dot != i &&
              !has_prefix (s + i, len - i, "(anonymous namespace)"))
            return i;
          depth++;
          break;
        case '.':
          last_dot = i + 1;
          break;
        default:
          break;
        }
    }
  return len;
}

typedef struct
{
  gsize   off;   /* in Parser.names */
  gsize   len;
  guint32 flags;
} Frame;

struct _FlamePerfBuilder
{
  FlameInput             *in;
  gboolean                binary;     /* positions are bytes, not lines */
  const FlamePerfOptions *options;
  FlamePerfStackFunc      func;
  gpointer                user_data;
  FlamePerfStats         *stats;

  /* the chosen event */
  const char             *event;
  gsize                   event_len;

  /* the record being read */
  gboolean                in_record;
  gboolean                skip;
  EventLine               ev;
  guint64                 record_line;

  char                   *names;
  gsize                   names_len;
  gsize                   names_alloc;
  Frame                  *frames;
  guint                   n_frames;
  guint                   frames_alloc;
  FlamePerfFrame         *out;
  guint                   out_alloc;
  GString                *scratch;    /* a symbol rewritten before use */
  char                    pid_buf[24];  /* the binary reader's pid and tid */
  char                    tid_buf[24];
};

typedef struct _FlamePerfBuilder Parser;

/* "FILE:LINE: reason", or "FILE: byte N: reason" for perf.data */
static void G_GNUC_PRINTF (5, 6)
set_error (Parser      *ps,
           GError     **error,
           gint         code,
           guint64      where,
           const char  *format,
           ...)
{
  va_list args;

  va_start (args, format);
  if (ps->binary)
    flame_input_set_error_at_bytev (ps->in, error, code, where, format, args);
  else
    flame_input_set_errorv (ps->in, error, code, where, format, args);
  va_end (args);
}

static char *
names_reserve (Parser *ps,
               gsize   extra)
{
  if (ps->names_len + extra > ps->names_alloc)
    {
      ps->names_alloc = MAX (ps->names_len + extra, ps->names_alloc * 2);
      ps->names = g_realloc (ps->names, ps->names_alloc);
    }
  return ps->names + ps->names_len;
}

static void
names_append (Parser     *ps,
              const char *s,
              gsize       len)
{
  /* @s may be NULL for an absent part (len 0), and memcpy must not see it */
  if (len == 0)
    return;
  memcpy (names_reserve (ps, len), s, len);
  ps->names_len += len;
}

static void
note_weird (Parser  *ps,
            guint64  lineno)
{
  if (ps->stats->weird_lines++ == 0)
    ps->stats->first_weird_line = lineno;
}

/* Builds one frame name at the end of the names buffer. Returns FALSE with
 * @error set when it is too long. */
/* FALSE (and @error) when the stack is too deep or a name too long */
static inline gboolean
check_frame_limits (Parser          *ps,
                    const StackLine *sl,
                    gsize            func_len,
                    guint64          lineno,
                    GError         **error)
{
  if (G_UNLIKELY (ps->n_frames >= FLAME_MAX_DEPTH))
    {
      set_error (ps, error, FLAME_ERROR_TOO_LARGE, lineno,
                 "a stack is deeper than %d frames", FLAME_MAX_DEPTH);
      return FALSE;
    }
  if (G_UNLIKELY (func_len > FLAME_MAX_NAME_LEN || sl->dso_len > FLAME_MAX_NAME_LEN ||
                  sl->pc_len > FLAME_MAX_NAME_LEN))
    {
      set_error (ps, error, FLAME_ERROR_TOO_LARGE, lineno,
                 "a frame name is longer than %d bytes", FLAME_MAX_NAME_LEN);
      return FALSE;
    }
  return TRUE;
}

/* The dso's base name stands in for an unknown symbol: "[libc-2.27.so]",
 * "[[kernel.kallsyms]]"; --addrs adds the address */
static void
append_unknown_name (Parser          *ps,
                     const StackLine *sl)
{
  const char *base = sl->dso;
  gsize base_len = sl->dso_len;
  const char *slash;

  if (equals (sl->dso, sl->dso_len, "[unknown]"))
    {
      base = "unknown";
      base_len = 7;
    }
  while ((slash = memchr (base, '/', base_len)) != NULL)
    {
      base_len -= slash + 1 - base;
      base = slash + 1;
    }
  names_append (ps, "[", 1);
  names_append (ps, base, base_len);
  if (ps->options->include_addrs)
    {
      names_append (ps, " <", 2);
      names_append (ps, sl->pc, sl->pc_len);
      names_append (ps, ">", 1);
    }
  names_append (ps, "]", 1);
}

/* Tidies the name appended at @start, in place: cut the argument list,
 * ';' would split the folded stack, and quotes go as in
 * stackcollapse-perf.pl ("RegExp:[&<>\"\']"); then the Rust and Java
 * rewrites. */
static inline void
tidy_name (Parser *ps,
           gsize   start)
{
  char *name = ps->names + start;
  gsize len = ps->names_len - start;
  gsize j = 0;

  len = args_start (name, len);
  for (gsize i = 0; i < len; i++)
    {
      char c = name[i];
      if (c == '"' || c == '\'')
        continue;
      name[j++] = c == ';' ? ':' : c;
    }
  len = j;

  /* perf leaves some Rust symbols half demangled; inferno finishes the
   * job, and so do we, with the rule the folded loader follows too. After
   * the tidying: the quote of a lifetime ("$u27$a") stays. */
  if (flame_names_rust_legacy (name, len, ps->scratch))
    {
      ps->names_len = start;
      names_append (ps, ps->scratch->str, ps->scratch->len);
      name = ps->names + start;
      len = ps->scratch->len;
    }

  /* Java: "Ljava/io/PrintStream:::print" → "java/io/PrintStream:::print" */
  if (ps->ev.comm_len >= 4 && memcmp (ps->ev.comm, "java", 4) == 0 &&
      len > 1 && name[0] == 'L' && memchr (name, '/', len) != NULL)
    {
      memmove (name, name + 1, len - 1);
      len--;
    }
  ps->names_len = start + len;
}

/* The frame's FLAME_FRAME_* flags; *suffix the annotation the options ask
 * for ("_[i]", "_[k]", "_[j]"), or NULL */
static inline guint32
frame_flags (Parser           *ps,
             const StackLine  *sl,
             gboolean          inlined_part,
             const char      **suffix)
{
  guint32 flags = 0;

  *suffix = NULL;
  if (inlined_part)
    {
      *suffix = "_[i]";
      return FLAME_FRAME_INLINED;
    }
  if (equals (sl->dso, sl->dso_len, "inlined"))
    flags |= FLAME_FRAME_INLINED;
  if (is_kernel_dso (sl->dso, sl->dso_len))
    {
      flags |= FLAME_FRAME_KERNEL;
      if (ps->options->annotate_kernel)
        *suffix = "_[k]";
    }
  else if (is_jit_dso (sl->dso, sl->dso_len))
    {
      flags |= FLAME_FRAME_JIT;
      if (ps->options->annotate_jit)
        *suffix = "_[j]";
    }
  return flags;
}

/* The name from @start to the end of the names as the next frame */
static inline void
push_frame (Parser  *ps,
            gsize    start,
            guint32  flags)
{
  if (ps->n_frames == ps->frames_alloc)
    {
      ps->frames_alloc = MAX (64, ps->frames_alloc * 2);
      ps->frames = g_renew (Frame, ps->frames, ps->frames_alloc);
    }
  ps->frames[ps->n_frames].off = start;
  ps->frames[ps->n_frames].len = ps->names_len - start;
  ps->frames[ps->n_frames].flags = flags;
  ps->n_frames++;
}

static gboolean
add_frame (Parser           *ps,
           const StackLine  *sl,
           const char       *func,
           gsize             func_len,
           gboolean          inlined_part,
           guint64           lineno,
           GError          **error)
{
  gsize start = ps->names_len;
  const char *suffix;
  guint32 flags;

  if (!check_frame_limits (ps, sl, func_len, lineno, error))
    return FALSE;
  if (equals (func, func_len, "[unknown]"))
    append_unknown_name (ps, sl);
  else
    names_append (ps, func, func_len);
  tidy_name (ps, start);

  flags = frame_flags (ps, sl, inlined_part, &suffix);
  if (suffix != NULL)
    names_append (ps, suffix, 4);
  push_frame (ps, start, flags);
  return TRUE;
}

static gboolean on_frame (Parser          *ps,
                          const StackLine *sl,
                          const char      *func,
                          gsize            func_len,
                          guint64          lineno,
                          GError         **error);

static gboolean
on_stack_line (Parser      *ps,
               const char  *line,
               gsize        len,
               guint64      lineno,
               GError     **error)
{
  StackLine sl;
  const char *func;
  gsize func_len;
  const char *off;

  if (!parse_stack_line (line, len, &sl))
    {
      note_weird (ps, lineno);
      return TRUE;
    }

  func = sl.sym;
  func_len = sl.sym_len;

  /* Linux 4.8+ prints symbol offsets: "cpu_startup_entry+0x800047c022ec" */
  off = NULL;
  for (const char *p = func; (p = find_bytes (p, func_len - (p - func), "+0x", 3)) != NULL; p++)
    off = p;
  if (off != NULL && off + 3 < func + func_len)
    {
      const char *p = off + 3;
      while (p < func + func_len && is_hex (*p))
        p++;
      if (p == func + func_len)
        func_len = off - func;
    }
  return on_frame (ps, &sl, func, func_len, lineno, error);
}

/* One frame of a stack line, its symbol without the offset */
static gboolean
on_frame (Parser          *ps,
          const StackLine *slp,
          const char      *func,
          gsize            func_len,
          guint64          lineno,
          GError         **error)
{
  const StackLine sl = *slp;
  guint first;

  /* a symbol in parentheses is a process name perf printed instead of a
   * frame; both reference tools skip it (even "(anonymous namespace)::f") */
  if (func_len > 0 && func[0] == '(')
    return TRUE;

  first = ps->n_frames;
  if (is_perf_map (sl.dso, sl.dso_len) && find_bytes (func, func_len, "->", 2) != NULL)
    {
      /* perf-map-agent writes inlined Java methods as "A->B->C", outermost
       * first. Only JIT maps: in native code "operator->" is a name. */
      const char *p = func;
      const char *end = func + func_len;
      gboolean inlined_part = FALSE;

      for (;;)
        {
          const char *arrow = find_bytes (p, end - p, "->", 2);
          const char *piece_end = arrow ? arrow : end;

          if (!add_frame (ps, &sl, p, piece_end - p, inlined_part, lineno, error))
            return FALSE;
          inlined_part = TRUE;
          if (arrow == NULL)
            break;
          p = arrow + 2;
        }
      /* the frames array is leaf first: the innermost piece goes first */
      for (guint i = first, k = ps->n_frames - 1; i < k; i++, k--)
        {
          Frame tmp = ps->frames[i];
          ps->frames[i] = ps->frames[k];
          ps->frames[k] = tmp;
        }
    }
  else if (!add_frame (ps, &sl, func, func_len, FALSE, lineno, error))
    return FALSE;

  return TRUE;
}

/* Appends the root frame: "comm", "comm-pid" or "comm-pid/tid", spaces
 * → '_'. Returns its offset in the names. */
static inline gsize
append_root_name (Parser *ps)
{
  gsize root_off = ps->names_len;
  char *dst = names_reserve (ps, ps->ev.comm_len);

  for (gsize i = 0; i < ps->ev.comm_len; i++)
    dst[i] = ps->ev.comm[i] == ' ' ? '_' : ps->ev.comm[i];
  ps->names_len += ps->ev.comm_len;
  if (ps->options->include_pid || ps->options->include_tid)
    {
      names_append (ps, "-", 1);
      if (ps->ev.pid_str != NULL)
        names_append (ps, ps->ev.pid_str, ps->ev.pid_len);
      else
        names_append (ps, "?", 1);
      if (ps->options->include_tid)
        {
          names_append (ps, "/", 1);
          names_append (ps, ps->ev.tid_str, ps->ev.tid_len);
        }
    }
  return root_off;
}

/* The frames for the callback, root first: the root frame at
 * @root_off, then the record's frames in reverse (perf prints the leaf
 * first). Returns their number. */
static inline guint
fill_out_frames (Parser *ps,
                 gsize   root_off)
{
  guint n = ps->n_frames + 1;

  if (n > ps->out_alloc)
    {
      ps->out_alloc = MAX (n, ps->out_alloc * 2);
      ps->out = g_renew (FlamePerfFrame, ps->out, ps->out_alloc);
    }
  ps->out[0].name = ps->names + root_off;
  ps->out[0].len = ps->names_len - root_off;
  ps->out[0].flags = FLAME_FRAME_THREAD;
  for (guint i = 0; i < ps->n_frames; i++)
    {
      const Frame *f = &ps->frames[ps->n_frames - 1 - i];
      ps->out[i + 1].name = ps->names + f->off;
      ps->out[i + 1].len = f->len;
      ps->out[i + 1].flags = f->flags;
    }
  return n;
}

/* The record's sample count, period and time in the stats */
static inline void
count_record (Parser *ps)
{
  ps->stats->samples++;
  if (ps->ev.has_period)
    ps->stats->have_period = TRUE;
  if (ps->ev.time >= 0)
    {
      if (ps->stats->first_time < 0 || ps->ev.time < ps->stats->first_time)
        ps->stats->first_time = ps->ev.time;
      if (ps->ev.time > ps->stats->last_time)
        ps->stats->last_time = ps->ev.time;
    }
}

/* Hands the record read to the callback, unless it is skipped or has
 * no frames (inferno drops those: perf record without -g and without
 * ip/sym fields); then forgets it */
static gboolean
end_record (Parser  *ps,
            GError **error)
{
  FlamePerfSample sample;
  gboolean ok = TRUE;
  guint n;

  if (!ps->in_record || ps->skip)
    goto reset;
  if (ps->n_frames == 0)
    {
      ps->stats->empty_records++;
      goto reset;
    }

  n = fill_out_frames (ps, append_root_name (ps));
  sample.comm = ps->ev.comm;
  sample.comm_len = ps->ev.comm_len;
  sample.pid = ps->ev.pid;
  sample.tid = ps->ev.tid;
  sample.time = ps->ev.time;
  count_record (ps);

  if (!ps->func (&sample, ps->out, n, ps->ev.has_period ? ps->ev.period : 1, ps->user_data))
    {
      set_error (ps, error, FLAME_ERROR_INVALID, ps->record_line, "stopped reading");
      ok = FALSE;
    }

reset:
  ps->in_record = FALSE;
  ps->skip = FALSE;
  ps->n_frames = 0;
  ps->names_len = 0;
  return ok;
}

/* Whether the record is of the chosen event; counts it when not */
static gboolean
choose_event (Parser          *ps,
              const EventLine *ev)
{
  if (ps->event == NULL)
    {
      /* the first event type seen wins: adding cycles to instructions
       * would mean nothing */
      ps->stats->event = g_strndup (ev->event, ev->event_len);
      ps->event = ps->stats->event;
      ps->event_len = ev->event_len;
    }
  else if (!(ev->event_len == ps->event_len &&
             memcmp (ev->event, ps->event, ps->event_len) == 0) &&
           !(ev->event_full_len == ps->event_len &&
             memcmp (ev->event_full, ps->event, ps->event_len) == 0))
    {
      if (ps->stats->other_events++ == 0)
        ps->stats->other_event = g_strndup (ev->event, ev->event_len);
      return FALSE;
    }
  return TRUE;
}

static gboolean
on_event_line (Parser      *ps,
               const char  *line,
               gsize        len,
               guint64      lineno,
               GError     **error)
{
  EventLine *ev = &ps->ev;

  if (!parse_event_line (line, len, ev))
    {
      note_weird (ps, lineno);
      return TRUE;
    }
  if (G_UNLIKELY (ev->comm_len > FLAME_MAX_NAME_LEN))
    {
      set_error (ps, error, FLAME_ERROR_TOO_LARGE, lineno,
                 "a process name is longer than %d bytes", FLAME_MAX_NAME_LEN);
      return FALSE;
    }

  ps->in_record = TRUE;
  ps->skip = FALSE;
  ps->record_line = lineno;

  if (ev->event != NULL && !choose_event (ps, ev))
        {
          /* a one-frame record ends on its event line: the next line
           * starts another record, not stack lines to skip */
          ps->skip = ev->rest == NULL;
          ps->in_record = ev->rest == NULL;
          return TRUE;
        }

  if (ev->rest != NULL)
    {
      /* a one-frame stack printed on the event line itself */
      if (!on_stack_line (ps, ev->rest, ev->rest_len, lineno, error))
        return FALSE;
      return end_record (ps, error);
    }
  return TRUE;
}

void
flame_perf_stats_clear (FlamePerfStats *stats)
{
  g_clear_pointer (&stats->event, g_free);
  g_clear_pointer (&stats->other_event, g_free);
  g_clear_pointer (&stats->warnings, g_ptr_array_unref);
  memset (stats, 0, sizeof *stats);
  stats->first_time = -1;
  stats->last_time = -1;
}

/**
 * flame_perf_parse:
 * @stats: (out caller-allocates) (optional): zeroed or cleared with
 *   flame_perf_stats_clear(); clear it again when done
 *
 * Calls @func once per record of the chosen event that has frames.
 * Returns FALSE with @error set on a limit violation, cancellation, or
 * when @func returns FALSE.
 */
static void
builder_init (Parser                 *ps,
              FlameInput             *in,
              gboolean                binary,
              const FlamePerfOptions *options,
              FlamePerfStackFunc      func,
              gpointer                user_data,
              FlamePerfStats         *stats)
{
  static const FlamePerfOptions default_options = { 0 };

  memset (ps, 0, sizeof *ps);
  ps->in = in;
  ps->binary = binary;
  ps->options = options ? options : &default_options;
  ps->func = func;
  ps->user_data = user_data;
  ps->stats = stats;
  ps->scratch = g_string_sized_new (256);
  /* never NULL: an empty name (a line of only an address) still takes
   * `ps->names + start` and a zero-length memcpy into it */
  ps->names_alloc = 4096;
  ps->names = g_malloc (ps->names_alloc);
  if (ps->options->event_filter != NULL && ps->options->event_filter[0] != 0)
    {
      stats->event = g_strdup (ps->options->event_filter);
      ps->event = stats->event;
      ps->event_len = strlen (ps->event);
    }
}

static void
builder_clear (Parser *ps)
{
  g_free (ps->names);
  g_free (ps->frames);
  g_free (ps->out);
  g_string_free (ps->scratch, TRUE);
}

FlamePerfBuilder *
flame_perf_builder_new (FlameInput             *in,
                        gboolean                binary,
                        const FlamePerfOptions *options,
                        FlamePerfStackFunc      func,
                        gpointer                user_data,
                        FlamePerfStats         *stats)
{
  Parser *ps = g_new0 (Parser, 1);

  builder_init (ps, in, binary, options, func, user_data, stats);
  return ps;
}

void
flame_perf_builder_free (FlamePerfBuilder *self)
{
  builder_clear (self);
  g_free (self);
}

gboolean
flame_perf_builder_begin (FlamePerfBuilder      *self,
                          const FlamePerfRecord *record,
                          guint64                position)
{
  EventLine *ev = &self->ev;

  memset (ev, 0, sizeof *ev);
  ev->comm = record->comm;
  ev->comm_len = MIN (record->comm_len, FLAME_MAX_NAME_LEN);
  ev->pid = record->pid;
  ev->tid = record->tid;
  if (record->pid >= 0)
    {
      ev->pid_len = g_snprintf (self->pid_buf, sizeof self->pid_buf, "%" G_GINT64_FORMAT,
                                record->pid);
      ev->pid_str = self->pid_buf;
    }
  ev->tid_len = g_snprintf (self->tid_buf, sizeof self->tid_buf, "%" G_GINT64_FORMAT,
                            record->tid);
  ev->tid_str = self->tid_buf;
  ev->time = record->time;
  ev->has_period = record->has_period;
  ev->period = record->period;
  ev->event = ev->event_full = record->event;
  ev->event_full_len = record->event_len;
  ev->event_len = event_base_len (record->event, record->event_len);

  self->n_frames = 0;
  self->names_len = 0;
  self->record_line = position;
  if (!choose_event (self, ev))
    {
      self->in_record = FALSE;
      return FALSE;
    }
  self->in_record = TRUE;
  self->skip = FALSE;
  return TRUE;
}

gboolean
flame_perf_builder_add_frame (FlamePerfBuilder  *self,
                              const char        *sym,
                              gsize              sym_len,
                              const char        *dso,
                              gsize              dso_len,
                              guint64            addr,
                              GError           **error)
{
  static const char hex[] = "0123456789abcdef";
  StackLine sl;
  char pc[17];
  gsize n = 0;

  /* the address as perf script prints it (lower-case hex), without
   * printf: this runs for every frame of every sample */
  do
    pc[sizeof pc - 1 - n++] = hex[addr & 0xf];
  while ((addr >>= 4) != 0);
  sl.pc_len = n;
  sl.pc = pc + sizeof pc - n;
  sl.sym = sym;
  sl.sym_len = sym_len;
  sl.dso = dso;
  sl.dso_len = dso_len;
  return on_frame (self, &sl, sym, sym_len, self->record_line, error);
}

gboolean
flame_perf_builder_end (FlamePerfBuilder  *self,
                        GError           **error)
{
  return end_record (self, error);
}

/**
 * flame_perf_parse:
 * @stats: (out caller-allocates) (optional): zeroed or cleared with
 *   flame_perf_stats_clear(); clear it again when done
 *
 * Reads `perf script` text or a perf.data file (flame_perfdata_sniff).
 * Calls @func once per record of the chosen event that has frames.
 * Returns FALSE with @error set on a limit violation, cancellation, or
 * when @func returns FALSE.
 */
gboolean
flame_perf_parse (FlameInput              *in,
                  const FlamePerfOptions  *options,
                  FlamePerfStackFunc       func,
                  gpointer                 user_data,
                  FlamePerfStats          *stats,
                  GError                 **error)
{
  FlamePerfStats local_stats = { 0 };
  Parser ps;
  gboolean ok = FALSE;
  gsize pos = 0;
  guint64 lineno = 0;

  if (stats == NULL)
    stats = &local_stats;
  flame_perf_stats_clear (stats);

  if (flame_perfdata_sniff (in->data, in->len))
    {
      ok = flame_perfdata_parse (in, options, func, user_data, stats, error);
      if (stats == &local_stats)
        flame_perf_stats_clear (&local_stats);
      return ok;
    }

  builder_init (&ps, in, FALSE, options, func, user_data, stats);

  while (pos < in->len)
    {
      const char *line;
      gsize line_len;

      if (!flame_input_tick (in, pos, error))
        goto out;
      line = flame_next_line (in->data, in->len, &pos, &line_len);
      lineno++;

      if (line_len > 0 && line[0] == '#')
        continue;
      if (line_len == 0)
        {
          if (!end_record (&ps, error))
            goto out;
        }
      else if (ps.in_record)
        {
          if (!ps.skip && !on_stack_line (&ps, line, line_len, lineno, error))
            goto out;
        }
      else if (!on_event_line (&ps, line, line_len, lineno, error))
        goto out;
    }
  if (!end_record (&ps, error))
    goto out;
  stats->lines = lineno;
  ok = TRUE;

out:
  builder_clear (&ps);
  if (stats == &local_stats)
    flame_perf_stats_clear (&local_stats);
  return ok;
}

/* Sniffing ----------------------------------------------------------- */

static gboolean
sniff_stack_line (const char *line,
                  gsize       len)
{
  StackLine sl;

  if (!parse_stack_line (line, len, &sl))
    return FALSE;
  for (gsize i = 0; i < sl.pc_len; i++)
    if (!is_hex (sl.pc[i]))
      return FALSE;
  return TRUE;
}

/**
 * flame_perf_sniff:
 *
 * Whether @data looks like `perf script` output: the first line that is
 * not a comment is an event line naming an event ("comm tid ... event:"),
 * and the next line is a stack line ("hexaddr symbol (dso)"), or the event
 * line carries a one-frame stack itself; and of the first SNIFF_LINES
 * lines that are neither comments nor blank, at least half are event or
 * stack lines (a file that only starts like perf script is not one).
 */
gboolean
flame_perf_sniff (const char *data,
                  gsize       len)
{
  gsize pos = 0;
  guint skipped = 0;
  const char *line;
  gsize line_len;
  EventLine ev;
  guint seen = 0, good = 0;

  for (;;)
    {
      if (pos >= len || skipped++ > SNIFF_MAX_SKIPPED)
        return FALSE;
      line = flame_next_line (data, len, &pos, &line_len);
      if (line_len > 0 && line[0] != '#')
        break;
    }

  if (memchr (line, 0, line_len) != NULL)
    return FALSE;
  if (!parse_event_line (line, line_len, &ev) || ev.event == NULL || ev.event_len == 0)
    return FALSE;
  if (ev.rest != NULL)
    {
      if (!sniff_stack_line (ev.rest, ev.rest_len))
        return FALSE;
    }
  else
    {
      gsize next = pos;

      if (next >= len)
        return FALSE;
      line = flame_next_line (data, len, &next, &line_len);
      if (line_len == 0 || line[0] == '#' || memchr (line, 0, line_len) != NULL ||
          !sniff_stack_line (line, line_len))
        return FALSE;
    }

  seen = good = 1;
  while (pos < len && seen < SNIFF_LINES)
    {
      line = flame_next_line (data, len, &pos, &line_len);
      if (line_len == 0 || line[0] == '#')
        continue;
      seen++;
      if (memchr (line, 0, line_len) != NULL)
        return FALSE;
      if (sniff_stack_line (line, line_len) || parse_event_line (line, line_len, &ev))
        good++;
    }
  return good * 2 >= seen;
}

/* Collapsing --------------------------------------------------------- */

typedef struct
{
  const char *str;
  gsize       len;
} Key;

typedef struct
{
  Key     key;
  gdouble weight;
  char    str[];
} Entry;

static guint
key_hash (gconstpointer p)
{
  const Key *k = p;
  guint32 h = 2166136261u;

  for (gsize i = 0; i < k->len; i++)
    h = (h ^ (guchar) k->str[i]) * 16777619u;
  return h;
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  const Key *x = a, *y = b;
  return x->len == y->len && memcmp (x->str, y->str, x->len) == 0;
}

typedef struct
{
  GHashTable *stacks;
  GString    *buf;
} Collapser;

static gboolean
collapse_stack (const FlamePerfSample *sample,
                const FlamePerfFrame  *frames,
                guint                  n_frames,
                gdouble                weight,
                gpointer               user_data)
{
  Collapser *c = user_data;
  Entry *e;
  Key k;

  g_string_truncate (c->buf, 0);
  for (guint i = 0; i < n_frames; i++)
    {
      if (i > 0)
        g_string_append_c (c->buf, ';');
      g_string_append_len (c->buf, frames[i].name, frames[i].len);
    }
  k.str = c->buf->str;
  k.len = c->buf->len;
  e = g_hash_table_lookup (c->stacks, &k);
  if (e == NULL)
    {
      e = g_malloc (sizeof (Entry) + k.len + 1);
      memcpy (e->str, k.str, k.len);
      e->str[k.len] = 0;
      e->key.str = e->str;
      e->key.len = k.len;
      e->weight = 0;
      g_hash_table_insert (c->stacks, &e->key, e);
    }
  e->weight += weight;
  return TRUE;
}

static int
compare_entries (const void *a,
                 const void *b)
{
  const Entry *x = *(Entry * const *) a;
  const Entry *y = *(Entry * const *) b;
  int r = memcmp (x->str, y->str, MIN (x->key.len, y->key.len));

  if (r != 0)
    return r;
  return x->key.len < y->key.len ? -1 : x->key.len > y->key.len;
}

/**
 * flame_perf_collapse:
 *
 * Returns: (transfer full): "stack weight" lines sorted bytewise, as
 *   stackcollapse-perf.pl prints them; weights are summed periods (1 per
 *   record without one).
 */
char *
flame_perf_collapse (FlameInput              *in,
                     const FlamePerfOptions  *options,
                     FlamePerfStats          *stats,
                     GError                 **error)
{
  Collapser c;
  GString *out;
  GHashTableIter iter;
  gpointer value;
  Entry **entries;
  guint n = 0;

  c.stacks = g_hash_table_new_full (key_hash, key_equal, NULL, g_free);
  c.buf = g_string_sized_new (4096);

  if (!flame_perf_parse (in, options, collapse_stack, &c, stats, error))
    {
      g_hash_table_unref (c.stacks);
      g_string_free (c.buf, TRUE);
      return NULL;
    }

  entries = g_new (Entry *, g_hash_table_size (c.stacks) + 1);
  g_hash_table_iter_init (&iter, c.stacks);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    entries[n++] = value;
  qsort (entries, n, sizeof (Entry *), compare_entries);

  out = g_string_sized_new (4096);
  for (guint i = 0; i < n; i++)
    {
      gdouble w = entries[i]->weight;

      g_string_append_len (out, entries[i]->str, entries[i]->key.len);
      /* folded is data: a '.' in every locale */
      g_string_append_c (out, ' ');
      flame_append_number_exact (out, w);
      g_string_append_c (out, '\n');
    }

  g_free (entries);
  g_hash_table_unref (c.stacks);
  g_string_free (c.buf, TRUE);
  return g_string_free (out, FALSE);
}

/* Loading ------------------------------------------------------------ */

typedef struct
{
  FlameThread *thread;
  gdouble      last_time;
} ThreadState;

typedef struct
{
  FlameProfile *profile;
  GArray       *ids;      /* guint32 frame ids */
  GHashTable   *threads;  /* tid + 1 → ThreadState */
  GArray       *gaps;     /* gdouble seconds between a thread's samples */
} Loader;

static gboolean
load_stack (const FlamePerfSample *sample,
            const FlamePerfFrame  *frames,
            guint                  n_frames,
            gdouble                weight,
            gpointer               user_data)
{
  Loader *ld = user_data;
  /* unsigned: a saturated tid (G_MAXINT64) must not overflow */
  gpointer key = GSIZE_TO_POINTER ((gsize) sample->tid + 1);
  ThreadState *ts;
  guint32 *ids;

  g_array_set_size (ld->ids, n_frames);
  ids = (guint32 *) ld->ids->data;
  for (guint i = 0; i < n_frames; i++)
    ids[i] = flame_profile_intern_frame (ld->profile, frames[i].name, frames[i].len,
                                         NULL, 0, 0, frames[i].flags);
  flame_profile_add_stack (ld->profile, 0, ids, n_frames, weight);
  flame_profile_add_samples (ld->profile, 0, 1);

  /* Threads by tid; a comm change (exec, thread renamed) is a new entry.
   * The name is only copied when it changes. */
  ts = g_hash_table_lookup (ld->threads, key);
  if (ts == NULL)
    {
      ts = g_new0 (ThreadState, 1);
      ts->last_time = -1;
      g_hash_table_insert (ld->threads, key, ts);
    }
  if (ts->thread == NULL || ts->thread->pid != sample->pid ||
      strlen (ts->thread->name) != sample->comm_len ||
      memcmp (ts->thread->name, sample->comm, sample->comm_len) != 0)
    {
      char *name = g_strndup (sample->comm, sample->comm_len);
      ts->thread = flame_profile_ensure_thread (ld->profile, name, sample->pid, sample->tid);
      g_free (name);
    }
  ts->thread->samples += 1;

  if (sample->time >= 0)
    {
      if (ts->last_time >= 0 && sample->time > ts->last_time)
        {
          gdouble gap = sample->time - ts->last_time;
          g_array_append_val (ld->gaps, gap);
        }
      ts->last_time = sample->time;
    }
  return TRUE;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return (x > y) - (x < y);
}

/* FALSE (and @error) when the file had no sample with a stack */
static gboolean
check_samples (FlameInput           *in,
               const FlamePerfStats *stats,
               GError              **error)
{
  if (stats->samples > 0)
    return TRUE;
  if (stats->weird_lines > 0)
    flame_input_set_error (in, error, FLAME_ERROR_EMPTY, stats->first_weird_line,
                           "no samples with a stack (this line is not a perf "
                           "script event or stack line)");
  else
    flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                           "no samples with a stack in the perf script output");
  return FALSE;
}

/* Weights: periods when perf printed them. For cpu-clock and task-clock
 * the period is the time the sample stands for, in nanoseconds; other
 * periods count events (cycles, instructions, faults), which are not
 * time. Without periods each record is one sample. */
static void
set_unit_and_event (FlameProfile         *profile,
                    const FlamePerfStats *stats)
{
  if (!stats->have_period)
    flame_profile_set_unit (profile, FLAME_UNIT_SAMPLES);
  else if (g_strcmp0 (stats->event, "cpu-clock") == 0 ||
           g_strcmp0 (stats->event, "task-clock") == 0)
    flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
  else
    flame_profile_set_unit (profile, FLAME_UNIT_EVENTS);
  flame_profile_set_event (profile, stats->event);
}

/* The sampling interval is the median gap between consecutive samples
 * of the same thread: the gap between any two records shrinks with the
 * number of threads running at once, and a mean would be dragged up by
 * the long gaps of threads that slept. When no thread was sampled twice,
 * fall back to duration / samples, and then, for clock events, to the
 * mean period. Sorts @gaps. */
static gdouble
estimate_interval_ms (FlameProfile         *profile,
                      const FlamePerfStats *stats,
                      GArray               *gaps,
                      gdouble               duration_ms)
{
  if (gaps->len > 0)
    {
      gdouble *g = (gdouble *) gaps->data;
      guint n = gaps->len;

      qsort (g, n, sizeof (gdouble), compare_doubles);
      return (n % 2 ? g[n / 2] : (g[n / 2 - 1] + g[n / 2]) / 2) * 1000;
    }
  if (duration_ms > 0 && stats->samples > 1)
    return duration_ms / (stats->samples - 1);
  if (flame_profile_get_unit (profile) == FLAME_UNIT_NANOSECONDS)
    return flame_profile_get_total_weight (profile, 0) / stats->samples / 1e6;
  return 0;
}

/* What the parser skipped, and the perf.data reader's notes */
static void
add_stats_warnings (FlameProfile         *profile,
                    const char           *name,
                    const FlamePerfStats *stats)
{
  if (stats->other_events > 0)
    flame_profile_add_warning (profile,
                               "%s: kept only the first event type, “%s”; skipped %"
                               G_GUINT64_FORMAT " sample%s of other events (first: “%s”)",
                               name, stats->event, stats->other_events,
                               stats->other_events == 1 ? "" : "s", stats->other_event);
  if (stats->weird_lines > 0)
    flame_profile_add_warning (profile,
                               "%s: skipped %" G_GUINT64_FORMAT " line%s that %s not perf "
                               "script event or stack lines (first at line %" G_GUINT64_FORMAT ")",
                               name, stats->weird_lines, stats->weird_lines == 1 ? "" : "s",
                               stats->weird_lines == 1 ? "is" : "are", stats->first_weird_line);
  if (stats->empty_records > 0)
    flame_profile_add_warning (profile,
                               "%s: skipped %" G_GUINT64_FORMAT " sample%s without a stack",
                               name, stats->empty_records,
                               stats->empty_records == 1 ? "" : "s");

  for (guint i = 0; stats->warnings != NULL && i < stats->warnings->len; i++)
    flame_profile_add_warning (profile, "%s",
                               (const char *) g_ptr_array_index (stats->warnings, i));
}

FlameProfile *
flame_perf_load (FlameInput  *in,
                 GError     **error)
{
  g_autoptr(FlameProfile) profile = NULL;
  FlamePerfStats stats = { 0 };
  Loader ld;
  gboolean ok;
  gdouble duration_ms = 0;

  profile = flame_profile_new (flame_perfdata_sniff (in->data, in->len) ? FLAME_FORMAT_PERF_DATA
                                                                        : FLAME_FORMAT_PERF_SCRIPT,
                               1);
  ld.profile = profile;
  ld.ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld.threads = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  ld.gaps = g_array_new (FALSE, FALSE, sizeof (gdouble));

  ok = flame_perf_parse (in, NULL, load_stack, &ld, &stats, error) &&
       check_samples (in, &stats, error);

  g_array_unref (ld.ids);
  g_hash_table_unref (ld.threads);
  if (!ok)
    {
      g_array_unref (ld.gaps);
      flame_perf_stats_clear (&stats);
      return NULL;
    }

  set_unit_and_event (profile, &stats);
  if (stats.first_time >= 0 && stats.last_time > stats.first_time)
    duration_ms = (stats.last_time - stats.first_time) * 1000;
  flame_profile_set_interval_ms (profile,
                                 estimate_interval_ms (profile, &stats, ld.gaps, duration_ms));
  flame_profile_set_duration_ms (profile, duration_ms);
  g_array_unref (ld.gaps);

  add_stats_warnings (profile, in->name, &stats);
  flame_perf_stats_clear (&stats);
  flame_profile_finish (profile);
  return g_steal_pointer (&profile);
}
