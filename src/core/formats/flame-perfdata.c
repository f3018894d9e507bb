/* flame-perfdata.c: perf.data, the files `perf record` writes.
 *
 * A file-mode perf.data is a header (magic "PERFILE2", the attribute,
 * data and event-type sections, a bitmap of feature sections), the
 * perf_event_attr of each event with its sample ids, the data section
 * (perf_event_header records) and, after it, one section per feature
 * (event names, build-ids, command line). A pipe-mode file (`perf record
 * -o -`) is a 16-byte header and records only: attributes and features
 * come as HEADER_ATTR and HEADER_FEATURE records. Layouts are those of
 * the kernel's include/uapi/linux/perf_event.h and perf's
 * tools/perf/util/header.c.
 *
 * Records are replayed as `perf script` does: in time order within the
 * FINISHED_ROUND rounds perf writes (the buffers of the CPUs are written
 * one after the other, so a COMM or MMAP may be stored after samples it
 * precedes), held back one round (ordered-events' ROUND flush). Only the
 * offsets and times are queued; the file itself is mapped, so a large
 * file costs its queue and the symbol tables, not its size.
 *
 * Each sample becomes a record of the perf script loader's builder
 * (flame-perf-private.h) with the frames perf script would print:
 * callchain entries, leaf first, named by the resolver the program
 * registered (flame-resolver.h), "[unknown]" with their module without
 * one. So every option and naming rule is the text loader's.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-error.h"
#include "flame-le.h"
#include "flame-mapped.h"
#include "flame-perf-private.h"
#include "flame-perfdata.h"
#include "flame-resolver.h"
#include "flame-search.h"

/* How far behind the reading the file's pages are given back
 * (flame_mapped_release): a 2 GB recording needs a few of these in
 * memory, not 2 GB */
#define RELEASE_LAG      (64 * 1024 * 1024)

#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0   64

/* record types */
enum
{
  REC_MMAP = 1,
  REC_LOST = 2,
  REC_COMM = 3,
  REC_EXIT = 4,
  REC_FORK = 7,
  REC_SAMPLE = 9,
  REC_MMAP2 = 10,
  REC_USER_START = 64,
  REC_HEADER_ATTR = 64,
  REC_HEADER_TRACING_DATA = 66,
  REC_FINISHED_ROUND = 68,
  REC_AUXTRACE = 71,
  REC_HEADER_FEATURE = 80,
  REC_COMPRESSED = 81,
};

/* sample_type bits */
#define S_IP         (1u << 0)
#define S_TID        (1u << 1)
#define S_TIME       (1u << 2)
#define S_ADDR       (1u << 3)
#define S_READ       (1u << 4)
#define S_CALLCHAIN  (1u << 5)
#define S_ID         (1u << 6)
#define S_CPU        (1u << 7)
#define S_PERIOD     (1u << 8)
#define S_STREAM_ID  (1u << 9)
#define S_IDENTIFIER (1u << 16)

/* read_format bits */
#define R_ENABLED (1u << 0)
#define R_RUNNING (1u << 1)
#define R_ID      (1u << 2)
#define R_GROUP   (1u << 3)
#define R_LOST    (1u << 4)

/* feature bits */
#define FEAT_BUILD_ID   2
#define FEAT_CMDLINE    11
#define FEAT_EVENT_DESC 12

#define MISC_CPUMODE_MASK 7
#define MISC_KERNEL       1
#define MISC_GUEST_KERNEL 4
#define MISC_MMAP_DATA    (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)

/* callchain context markers: (u64) -32 ... -4095 */
#define CONTEXT_HV           ((guint64) -32)
#define CONTEXT_KERNEL       ((guint64) -128)
#define CONTEXT_USER         ((guint64) -512)
#define CONTEXT_MAX          ((guint64) -4095)

typedef struct
{
  guint32  type;
  guint64  config;
  guint64  sample_type;
  guint64  read_format;
  gboolean sample_id_all;
  guint64  sample_period;
  gboolean freq;
  char    *name;
} Attr;

typedef struct
{
  guint64     start, end, pgoff;
  const char *path;     /* interned */
} Map;
G_STATIC_ASSERT (G_STRUCT_OFFSET (Map, start) == 0);

typedef struct
{
  GArray   *maps;       /* Map, sorted by start, not overlapping */
  gpointer  space;      /* the resolver's, for these maps; NULL: none yet */
} Process;

typedef struct
{
  guint64 time;
  guint64 seq;
  gsize   off;
} Queued;

typedef struct
{
  FlameInput          *in;
  const guint8        *file;
  gsize                len;
  gboolean             pipe;
  FlamePerfBuilder    *builder;
  FlamePerfStats      *stats;

  GArray              *attrs;      /* Attr */
  GHashTable          *ids;        /* sample id (guint64 *) → attr index + 1 */
  GStringChunk        *strings;
  GHashTable          *interned;   /* string → the same, in strings */
  GHashTable          *processes;  /* pid → Process */
  GHashTable          *comms;      /* tid → interned comm */
  GHashTable          *build_ids;  /* interned path → GBytes */

  const FlameResolver *resolver;
  gpointer             session;
  guint64              kernel_text;

  GArray              *queue;      /* Queued */
  guint64              next_flush;
  guint64              max_time;
  guint64              seq;

  guint64              lost;
  guint64              unknown_ids;
  guint64              compressed;
  GString             *comm_buf;
  gsize                released;   /* the file's pages before it are given back */
} Reader;

gboolean
flame_perfdata_sniff (const char *data,
                      gsize       len)
{
  return len >= 8 && (memcmp (data, "PERFILE2", 8) == 0 || memcmp (data, "2ELIFREP", 8) == 0);
}

static void G_GNUC_PRINTF (5, 6)
fail (Reader      *rd,
      GError     **error,
      gint         code,
      gsize        where,
      const char  *format,
      ...)
{
  va_list args;

  va_start (args, format);
  flame_input_set_error_at_bytev (rd->in, error, code, where, format, args);
  va_end (args);
}

static void
warn (Reader     *rd,
      const char *message)
{
  if (rd->stats->warnings == NULL)
    rd->stats->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (rd->stats->warnings, g_strdup (message));
}

static const char *
intern (Reader     *rd,
        const char *s,
        gsize       len)
{
  g_autofree char *tmp = g_strndup (s, len);
  const char *found = g_hash_table_lookup (rd->interned, tmp);

  if (found == NULL)
    {
      found = g_string_chunk_insert (rd->strings, tmp);
      g_hash_table_add (rd->interned, (gpointer) found);
    }
  return found;
}

/* A NUL-terminated string within [p, end); its length stops at the end */
static gsize
str_len (const guint8 *p,
         const guint8 *end)
{
  const guint8 *nul = p < end ? memchr (p, 0, end - p) : NULL;

  return nul ? (gsize) (nul - p) : (gsize) (end - p);
}

/* Attributes ----------------------------------------------------------- */

static gboolean
add_attr (Reader        *rd,
          const guint8  *p,
          gsize          size,
          gsize          where,
          const guint8  *ids,
          gsize          n_ids,
          GError       **error)
{
  Attr a = { 0 };
  guint64 flags;

  if (size < ATTR_SIZE_VER0)
    {
      fail (rd, error, FLAME_ERROR_PARSE, where,
            "an event attribute of %" G_GSIZE_FORMAT " bytes (at least %d expected)",
            size, ATTR_SIZE_VER0);
      return FALSE;
    }
  if (rd->attrs->len >= 65536)
    {
      fail (rd, error, FLAME_ERROR_TOO_LARGE, where, "more than 65536 events");
      return FALSE;
    }
  a.type = rd32 (p);
  a.config = rd64 (p + 8);
  a.sample_period = rd64 (p + 16);
  a.sample_type = rd64 (p + 24);
  a.read_format = rd64 (p + 32);
  flags = rd64 (p + 40);
  a.freq = (flags >> 10) & 1;
  a.sample_id_all = (flags >> 18) & 1;
  g_array_append_val (rd->attrs, a);
  for (gsize i = 0; i < n_ids; i++)
    {
      guint64 id = rd64 (ids + 8 * i);

      if (!g_hash_table_contains (rd->ids, &id))
        g_hash_table_insert (rd->ids, g_memdup2 (&id, sizeof id),
                             GUINT_TO_POINTER (rd->attrs->len));
    }
  return TRUE;
}

/* What perf calls an event whose name the file does not give */
static char *
attr_default_name (const Attr *a)
{
  static const char * const hw[] = {
    "cycles", "instructions", "cache-references", "cache-misses", "branches",
    "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
    "ref-cycles",
  };
  static const char * const sw[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
    "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
    "bpf-output", "cgroup-switches",
  };

  if (a->type == 0 && a->config < G_N_ELEMENTS (hw))
    return g_strdup (hw[a->config]);
  if (a->type == 1 && a->config < G_N_ELEMENTS (sw))
    return g_strdup (sw[a->config]);
  return g_strdup_printf ("event-%u-%" G_GINT64_MODIFIER "x", a->type, a->config);
}

/* Features -------------------------------------------------------------- */

/* perf_header_string: u32 length (with padding), then the bytes */
static gboolean
read_string (const guint8  *p,
             const guint8  *end,
             const guint8 **next,
             const char   **s,
             gsize         *len)
{
  guint32 n;

  if (end - p < 4)
    return FALSE;
  n = rd32 (p);
  if ((gsize) (end - p - 4) < n)
    return FALSE;
  *s = (const char *) p + 4;
  *len = str_len (p + 4, p + 4 + n);
  *next = p + 4 + n;
  return TRUE;
}

static gboolean
read_event_desc (Reader        *rd,
                 const guint8  *p,
                 gsize          size,
                 gsize          where,
                 GError       **error)
{
  const guint8 *end = p + size;
  guint32 nr, attr_size;

  if (size < 8)
    goto cut;
  nr = rd32 (p);
  attr_size = rd32 (p + 4);
  p += 8;
  if (attr_size < ATTR_SIZE_VER0)
    goto cut;
  for (guint32 i = 0; i < nr; i++)
    {
      guint32 nr_ids;
      const char *name;
      gsize name_len;
      const guint8 *ids;
      guint idx = i;

      if ((gsize) (end - p) < (gsize) attr_size + 4)
        goto cut;
      nr_ids = rd32 (p + attr_size);
      p += attr_size + 4;
      if (!read_string (p, end, &p, &name, &name_len))
        goto cut;
      if ((gsize) (end - p) / 8 < nr_ids)
        goto cut;
      ids = p;
      p += (gsize) nr_ids * 8;
      /* by its first id, else by its place */
      if (nr_ids > 0)
        {
          guint64 id = rd64 (ids);
          gpointer v = g_hash_table_lookup (rd->ids, &id);

          if (v != NULL)
            idx = GPOINTER_TO_UINT (v) - 1;
        }
      if (idx < rd->attrs->len)
        {
          Attr *a = &g_array_index (rd->attrs, Attr, idx);

          g_free (a->name);
          a->name = g_strndup (name, MIN (name_len, (gsize) FLAME_MAX_NAME_LEN));
        }
    }
  return TRUE;

cut:
  fail (rd, error, FLAME_ERROR_PARSE, where, "the event description section is cut short");
  return FALSE;
}

/* perf_record_header_build_id entries: header, pid, 24 bytes of build-id
 * (with its size in the last of them when misc says so), file name */
static gboolean
read_build_ids (Reader        *rd,
                const guint8  *p,
                gsize          size,
                gsize          where,
                GError       **error)
{
  const guint8 *end = p + size;

  while (end - p >= 8)
    {
      guint16 misc = rd16 (p + 4);
      guint16 rsize = rd16 (p + 6);
      gsize id_len = 20;
      const char *path;

      if (rsize < 8 + 4 + 24 || rsize > end - p)
        {
          fail (rd, error, FLAME_ERROR_PARSE, where + (p - (end - size)),
                "a build-id entry of %u bytes", rsize);
          return FALSE;
        }
      if (misc & (1u << 15))
        id_len = MIN (p[12 + 20], 20);
      path = intern (rd, (const char *) p + 36, str_len (p + 36, p + rsize));
      g_hash_table_replace (rd->build_ids, (gpointer) path, g_bytes_new (p + 12, id_len));
      p += rsize;
    }
  return TRUE;
}

static gboolean
read_feature (Reader        *rd,
              guint          feat,
              const guint8  *p,
              gsize          size,
              gsize          where,
              GError       **error)
{
  switch (feat)
    {
    case FEAT_EVENT_DESC:
      return read_event_desc (rd, p, size, where, error);
    case FEAT_BUILD_ID:
      return read_build_ids (rd, p, size, where, error);
    default:
      return TRUE;
    }
}

/* Processes, threads, maps --------------------------------------------- */

static void
process_free (gpointer data)
{
  Process *proc = data;

  g_array_unref (proc->maps);
  g_free (proc);
}

static void
process_forget_space (Reader  *rd,
                      Process *proc)
{
  if (proc->space != NULL && rd->resolver != NULL)
    rd->resolver->space_free (proc->space);
  proc->space = NULL;
}

static Process *
get_process (Reader *rd,
             gint64  pid)
{
  gpointer key = GSIZE_TO_POINTER ((gsize) (guint32) pid);
  Process *proc = g_hash_table_lookup (rd->processes, key);

  if (proc == NULL)
    {
      proc = g_new0 (Process, 1);
      proc->maps = g_array_new (FALSE, FALSE, sizeof (Map));
      g_hash_table_insert (rd->processes, key, proc);
    }
  return proc;
}

/* Inserts @m, cutting the maps it overlaps as perf does */
static void
insert_map (Reader  *rd,
            Process *proc,
            Map     *m)
{
  GArray *maps = proc->maps;
  guint i = 0;

  process_forget_space (rd, proc);
  while (i < maps->len)
    {
      Map *o = &g_array_index (maps, Map, i);

      if (o->end <= m->start || o->start >= m->end)
        {
          i++;
          continue;
        }
      if (o->start < m->start && o->end > m->end)
        {
          /* m in the middle of o: o's tail is a map of its own */
          Map tail = *o;

          tail.pgoff += m->end - o->start;
          tail.start = m->end;
          o->end = m->start;
          g_array_insert_val (maps, i + 1, tail);
          i += 2;
        }
      else if (o->start < m->start)
        {
          o->end = m->start;
          i++;
        }
      else if (o->end > m->end)
        {
          o->pgoff += m->end - o->start;
          o->start = m->end;
          i++;
        }
      else
        g_array_remove_index (maps, i);
    }
  for (i = 0; i < maps->len && g_array_index (maps, Map, i).start < m->start; i++)
    ;
  g_array_insert_val (maps, i, *m);
}

static const Map *
find_map (Process *proc,
          guint64  ip)
{
  const Map *maps = (const Map *) (gpointer) proc->maps->data;
  gsize lo = flame_partition_point (maps, proc->maps->len, sizeof (Map),
                                    flame_starts_at_or_before, &ip);

  if (lo > 0 && ip < maps[lo - 1].end)
    return &maps[lo - 1];
  return NULL;
}

static void
on_mmap (Reader       *rd,
         const guint8 *r,
         gsize         size,
         gboolean      mmap2)
{
  guint16 misc = rd16 (r + 4);
  gsize name_off = mmap2 ? 72 : 40;
  guint32 pid;
  Map m;
  const char *path;
  gsize path_len;

  if (size < name_off || (misc & MISC_MMAP_DATA))
    return;
  pid = rd32 (r + 8);
  m.start = rd64 (r + 16);
  m.end = m.start + rd64 (r + 24);
  m.pgoff = rd64 (r + 32);
  path_len = str_len (r + name_off, r + size);
  path = intern (rd, (const char *) r + name_off, MIN (path_len, (gsize) 4096));
  m.path = path;
  if (pid == G_MAXUINT32)
    {
      /* the kernel: "[kernel.kallsyms]_text" at the address of _text */
      if (g_str_has_prefix (path, "[kernel.kallsyms]"))
        rd->kernel_text = m.pgoff;
      return;
    }
  if (m.end <= m.start)
    return;
  if (mmap2 && (misc & MISC_MMAP_BUILD_ID) && !g_hash_table_contains (rd->build_ids, path))
    g_hash_table_insert (rd->build_ids, (gpointer) path,
                         g_bytes_new (r + 44, MIN (r[40], 20)));
  insert_map (rd, get_process (rd, pid), &m);
}

static void
on_comm (Reader       *rd,
         const guint8 *r,
         gsize         size)
{
  guint32 tid;

  if (size < 16)
    return;
  tid = rd32 (r + 12);
  g_hash_table_replace (rd->comms, GUINT_TO_POINTER (tid),
                        (gpointer) intern (rd, (const char *) r + 16,
                                           MIN (str_len (r + 16, r + size), (gsize) 256)));
}

static void
on_fork (Reader       *rd,
         const guint8 *r,
         gsize         size)
{
  guint32 pid, ppid, tid, ptid;
  const char *comm;

  if (size < 24)
    return;
  pid = rd32 (r + 8);
  ppid = rd32 (r + 12);
  tid = rd32 (r + 16);
  ptid = rd32 (r + 20);
  comm = g_hash_table_lookup (rd->comms, GUINT_TO_POINTER (ptid));
  if (comm != NULL)
    g_hash_table_replace (rd->comms, GUINT_TO_POINTER (tid), (gpointer) comm);
  else
    g_hash_table_remove (rd->comms, GUINT_TO_POINTER (tid));
  if (pid != ppid)
    {
      /* a new process: a copy of its parent's maps */
      Process *parent = get_process (rd, ppid);
      Process *child = get_process (rd, pid);

      process_forget_space (rd, child);
      g_array_set_size (child->maps, 0);
      g_array_append_vals (child->maps, parent->maps->data, parent->maps->len);
    }
}

/* Samples -------------------------------------------------------------- */

/* Started at the first lookup, when the kernel's mmap is known */
static gpointer
get_session (Reader *rd)
{
  if (rd->session == NULL)
    rd->session = rd->resolver->session_new (rd->kernel_text);
  return rd->session;
}

static gpointer
process_space (Reader  *rd,
               Process *proc)
{
  if (proc->space == NULL)
    {
      proc->space = rd->resolver->space_new (get_session (rd));
      for (guint i = 0; i < proc->maps->len; i++)
        {
          const Map *m = &g_array_index (proc->maps, Map, i);
          GBytes *id;

          if (m->path[0] != '/' && strcmp (m->path, "[vdso]") != 0)
            continue;
          id = g_hash_table_lookup (rd->build_ids, m->path);
          rd->resolver->add_module (proc->space, m->path, m->start - m->pgoff,
                                    id ? g_bytes_get_data (id, NULL) : NULL,
                                    id ? g_bytes_get_size (id) : 0);
        }
    }
  return proc->space;
}

static gboolean
add_frame (Reader    *rd,
           Process   *proc,
           guint64    ip,
           gboolean   kernel,
           GError   **error)
{
  const Map *m;
  const char *dso;

  if (kernel)
    {
      const char *module = NULL;
      const char *name = rd->resolver ? rd->resolver->lookup_kernel (get_session (rd), ip, &module)
                                      : NULL;

      if (name == NULL)
        return flame_perf_builder_add_frame (rd->builder, "[unknown]", 9,
                                             "[kernel.kallsyms]", 17, ip, error);
      if (module != NULL)
        {
          g_autofree char *dso_name = g_strdup_printf ("[%s]", module);

          return flame_perf_builder_add_frame (rd->builder, name, strlen (name), dso_name,
                                               strlen (dso_name), ip, error);
        }
      return flame_perf_builder_add_frame (rd->builder, name, strlen (name),
                                           "[kernel.kallsyms]", 17, ip, error);
    }

  m = find_map (proc, ip);
  if (m == NULL)
    return flame_perf_builder_add_frame (rd->builder, "[unknown]", 9, "[unknown]", 9, ip,
                                         error);
  dso = m->path;
  if (rd->resolver != NULL)
    {
      const FlameResolvedFrame *frames;
      /* named at the address itself, callers too, as perf does */
      guint n = rd->resolver->lookup (process_space (rd, proc), ip, TRUE, &frames);

      if (n > 0)
        {
          for (guint i = 0; i < n; i++)
            {
              const char *name = frames[i].name ? frames[i].name : "[unknown]";
              gboolean inlined = i + 1 < n;

              if (!flame_perf_builder_add_frame (rd->builder, name, strlen (name),
                                                 inlined ? "inlined" : dso,
                                                 inlined ? 7 : strlen (dso),
                                                 ip - m->start + m->pgoff, error))
                return FALSE;
            }
          return TRUE;
        }
    }
  return flame_perf_builder_add_frame (rd->builder, "[unknown]", 9, dso, strlen (dso),
                                       ip - m->start + m->pgoff, error);
}

static Attr *
sample_attr (Reader       *rd,
             const guint8 *r,
             gsize         size)
{
  Attr *first = &g_array_index (rd->attrs, Attr, 0);
  guint64 st = first->sample_type;
  gsize pos = 8;
  guint64 id;
  gpointer v;

  if (rd->attrs->len == 1)
    return first;
  if (!(st & S_IDENTIFIER))
    {
      if (!(st & S_ID))
        return first;
      pos += 8 * (!!(st & S_IP) + !!(st & S_TID) + !!(st & S_TIME) + !!(st & S_ADDR));
    }
  if (size < pos + 8)
    return NULL;
  id = rd64 (r + pos);
  v = g_hash_table_lookup (rd->ids, &id);
  return v ? &g_array_index (rd->attrs, Attr, GPOINTER_TO_UINT (v) - 1) : NULL;
}

/* What on_sample() uses of a SAMPLE record's fields */
typedef struct
{
  guint64       ip, time, period, nr;
  guint32       pid, tid;
  const guint8 *chain;   /* nr addresses, or NULL */
} Sample;

/* FALSE unless @n bytes are left between @at and end */
#define NEED(at, n) \
  G_STMT_START { if ((gsize) (end - (at)) < (gsize) (n)) return FALSE; } G_STMT_END

/* Skips a sample's read_format values; FALSE when they run past @end */
static gboolean
skip_read_values (guint64        rf,
                  const guint8 **p,
                  const guint8  *end)
{
  guint64 per = 8 + 8 * (!!(rf & R_ID) + !!(rf & R_LOST));
  guint64 both = 8 * (!!(rf & R_ENABLED) + !!(rf & R_RUNNING));
  guint64 n;

  if (!(rf & R_GROUP))
    {
      NEED (*p, per + both);
      *p += per + both;
      return TRUE;
    }
  NEED (*p, 8);
  n = rd64 (*p);
  *p += 8;
  NEED (*p, both);
  *p += both;
  if (n > (guint64) (end - *p) / per)
    return FALSE;
  *p += n * per;
  return TRUE;
}

/* Reads the fields of @a's sample_type, in the kernel's order, up to the
 * callchain; FALSE when the record is too short for them */
static gboolean
read_sample_fields (const Attr   *a,
                    const guint8 *r,
                    gsize         size,
                    Sample       *s)
{
  const guint8 *q = r + 8, *end = r + size;
  guint64 st = a->sample_type;
  gsize skip = 8 * (!!(st & S_ADDR) + !!(st & S_ID) + !!(st & S_STREAM_ID) + !!(st & S_CPU));

  if (st & S_IDENTIFIER)
    {
      NEED (q, 8);
      q += 8;
    }
  if (st & S_IP)
    {
      NEED (q, 8);
      s->ip = rd64 (q);
      q += 8;
    }
  if (st & S_TID)
    {
      NEED (q, 8);
      s->pid = rd32 (q);
      s->tid = rd32 (q + 4);
      q += 8;
    }
  if (st & S_TIME)
    {
      NEED (q, 8);
      s->time = rd64 (q);
      q += 8;
    }
  NEED (q, skip);
  q += skip;
  if (st & S_PERIOD)
    {
      NEED (q, 8);
      s->period = rd64 (q);
      q += 8;
    }
  if ((st & S_READ) && !skip_read_values (a->read_format, &q, end))
    return FALSE;
  if (st & S_CALLCHAIN)
    {
      NEED (q, 8);
      s->nr = rd64 (q);
      q += 8;
      if (s->nr > (guint64) (end - q) / 8)
        return FALSE;
      s->chain = q;
    }
  return TRUE;
}

#undef NEED

/* The record builder's view of a sample: thread name, ids, time, event */
static void
sample_record (Reader          *rd,
               Attr            *a,
               const Sample    *s,
               FlamePerfRecord *rec,
               char             tidname[16])
{
  guint64 st = a->sample_type;

  if (g_hash_table_lookup_extended (rd->comms, GUINT_TO_POINTER (s->tid), NULL,
                                    (gpointer *) &rec->comm))
    rec->comm_len = strlen (rec->comm);
  else
    {
      /* perf's name for a thread it has seen no COMM of */
      rec->comm_len = g_snprintf (tidname, 16, ":%d", (gint32) s->tid);
      rec->comm = tidname;
    }
  rec->pid = (st & S_TID) ? (gint64) (gint32) s->pid : -1;
  rec->tid = (st & S_TID) ? (gint64) (gint32) s->tid : -1;
  rec->time = (st & S_TIME) ? s->time / 1e9 : -1;
  rec->has_period = (st & S_PERIOD) != 0;
  rec->period = s->period;
  if (a->name == NULL)
    a->name = attr_default_name (a);
  rec->event = a->name;
  rec->event_len = strlen (a->name);
}

/* The sample's frames, leaf first: its callchain, where context markers
 * switch between kernel and user, else its ip */
static gboolean
add_sample_frames (Reader        *rd,
                   const guint8  *r,
                   const Attr    *a,
                   const Sample  *s,
                   GError       **error)
{
  Process *proc = get_process (rd, (gint32) s->pid);
  gboolean kernel = ((rd16 (r + 4) & MISC_CPUMODE_MASK) == MISC_KERNEL);

  if (s->chain == NULL)
    return !(a->sample_type & S_IP) || add_frame (rd, proc, s->ip, kernel, error);
  for (guint64 i = 0; i < s->nr; i++)
    {
      guint64 v = rd64 (s->chain + 8 * i);

      if (v >= CONTEXT_MAX)
        {
          kernel = v == CONTEXT_KERNEL || v == CONTEXT_HV;
          continue;
        }
      if (!add_frame (rd, proc, v, kernel, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
on_sample (Reader        *rd,
           gsize          off,
           GError       **error)
{
  const guint8 *r = rd->file + off;
  gsize size = rd16 (r + 6);
  Attr *a = sample_attr (rd, r, size);
  Sample s = { .pid = G_MAXUINT32, .tid = G_MAXUINT32 };
  FlamePerfRecord rec = { 0 };
  char tidname[16];

  if (a == NULL)
    {
      rd->unknown_ids++;
      return TRUE;
    }
  if (!read_sample_fields (a, r, size, &s))
    {
      fail (rd, error, FLAME_ERROR_PARSE, off, "a sample record of %" G_GSIZE_FORMAT
            " bytes is too short for its event's sample format", size);
      return FALSE;
    }
  sample_record (rd, a, &s, &rec, tidname);
  if (!flame_perf_builder_begin (rd->builder, &rec, off))
    return TRUE;
  if (!add_sample_frames (rd, r, a, &s, error))
    return FALSE;
  return flame_perf_builder_end (rd->builder, error);
}

/* The record's time: in a sample, or in the sample_id_all trailer of
 * the others; FALSE when it has none. */
static gboolean
record_time (Reader       *rd,
             const guint8 *r,
             gsize         size,
             guint64      *time)
{
  guint32 type = rd32 (r);
  const Attr *a;
  guint64 st;

  if (rd->attrs->len == 0)
    return FALSE;
  if (type == REC_SAMPLE)
    {
      gsize pos = 8;

      a = sample_attr (rd, r, size);
      if (a == NULL || !(a->sample_type & S_TIME))
        return FALSE;
      st = a->sample_type;
      pos += 8 * (!!(st & S_IDENTIFIER) + !!(st & S_IP) + !!(st & S_TID));
      if (size < pos + 8)
        return FALSE;
      *time = rd64 (r + pos);
      return TRUE;
    }
  a = &g_array_index (rd->attrs, Attr, 0);
  if (!a->sample_id_all)
    return FALSE;
  if (rd->attrs->len > 1 && (a->sample_type & S_IDENTIFIER) && size >= 16)
    {
      guint64 id = rd64 (r + size - 8);
      gpointer v = g_hash_table_lookup (rd->ids, &id);

      if (v != NULL)
        a = &g_array_index (rd->attrs, Attr, GPOINTER_TO_UINT (v) - 1);
    }
  st = a->sample_type;
  if (!(st & S_TIME))
    return FALSE;
  {
    gsize trailer = 8 * (!!(st & S_TID) + 1 + !!(st & S_ID) + !!(st & S_STREAM_ID) +
                         !!(st & S_CPU) + !!(st & S_IDENTIFIER));

    if (size < 8 + trailer)
      return FALSE;
    *time = rd64 (r + size - trailer + 8 * !!(st & S_TID));
  }
  return TRUE;
}

/* A kernel record, in time order */
static gboolean
deliver (Reader  *rd,
         gsize    off,
         GError **error)
{
  const guint8 *r = rd->file + off;
  gsize size = rd16 (r + 6);

  switch (rd32 (r))
    {
    case REC_SAMPLE:
      if (rd->attrs->len == 0)
        {
          fail (rd, error, FLAME_ERROR_PARSE, off, "a sample before any event attribute");
          return FALSE;
        }
      return on_sample (rd, off, error);
    case REC_MMAP:
      on_mmap (rd, r, size, FALSE);
      break;
    case REC_MMAP2:
      on_mmap (rd, r, size, TRUE);
      break;
    case REC_COMM:
      on_comm (rd, r, size);
      break;
    case REC_FORK:
      on_fork (rd, r, size);
      break;
    case REC_LOST:
      if (size >= 24)
        rd->lost += rd64 (r + 16);
      break;
    default:
      break;
    }
  return TRUE;
}

static int
compare_queued (const void *a,
                const void *b)
{
  const Queued *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Delivers the queued records up to @limit (all with G_MAXUINT64) */
static gboolean
flush (Reader  *rd,
       guint64  limit,
       GError **error)
{
  Queued *q = (Queued *) (gpointer) rd->queue->data;
  guint n = rd->queue->len, i;

  if (n == 0)
    return TRUE;
  qsort (q, n, sizeof (Queued), compare_queued);
  for (i = 0; i < n && q[i].time <= limit; i++)
    if (!deliver (rd, q[i].off, error))
      return FALSE;
  g_array_remove_range (rd->queue, 0, i);
  return TRUE;
}

static gboolean
on_record (Reader  *rd,
           gsize    off,
           GError **error)
{
  const guint8 *r = rd->file + off;
  guint32 type = rd32 (r);
  gsize size = rd16 (r + 6);
  guint64 time;

  if (type < REC_USER_START)
    {
      if (record_time (rd, r, size, &time))
        {
          Queued q = { time, rd->seq++, off };

          g_array_append_val (rd->queue, q);
          rd->max_time = MAX (rd->max_time, time);
          return TRUE;
        }
      return deliver (rd, off, error);
    }

  switch (type)
    {
    case REC_FINISHED_ROUND:
      if (!flush (rd, rd->next_flush, error))
        return FALSE;
      rd->next_flush = rd->max_time;
      return TRUE;
    case REC_HEADER_ATTR:
      {
        guint32 attr_size;

        if (size < 8 + ATTR_SIZE_VER0)
          {
            fail (rd, error, FLAME_ERROR_PARSE, off, "an attribute record of %" G_GSIZE_FORMAT
                  " bytes", size);
            return FALSE;
          }
        attr_size = rd32 (r + 12);
        if (attr_size < ATTR_SIZE_VER0 || attr_size > size - 8)
          {
            fail (rd, error, FLAME_ERROR_PARSE, off,
                  "an attribute of %u bytes in a record of %" G_GSIZE_FORMAT, attr_size, size);
            return FALSE;
          }
        return add_attr (rd, r + 8, attr_size, off, r + 8 + attr_size,
                         (size - 8 - attr_size) / 8, error);
      }
    case REC_HEADER_FEATURE:
      if (size < 16)
        return TRUE;
      if (rd64 (r + 8) == FEAT_EVENT_DESC || rd64 (r + 8) == FEAT_BUILD_ID)
        return read_feature (rd, (guint) rd64 (r + 8), r + 16, size - 16, off + 16, error);
      return TRUE;
    case REC_COMPRESSED:
      rd->compressed++;
      return TRUE;
    default:
      return TRUE;
    }
}

/* The type and size of the record at @off, checked against @end */
static gboolean
read_record_header (Reader   *rd,
                    gsize     off,
                    gsize     end,
                    guint32  *type,
                    gsize    *size,
                    GError  **error)
{
  if (end - off < 8)
    {
      fail (rd, error, FLAME_ERROR_PARSE, off, "a record header is cut short "
            "(%" G_GSIZE_FORMAT " of 8 bytes)", end - off);
      return FALSE;
    }
  *type = rd32 (rd->file + off);
  *size = rd16 (rd->file + off + 6);
  if (*size < 8)
    {
      fail (rd, error, FLAME_ERROR_PARSE, off, "a record of %" G_GSIZE_FORMAT
            " bytes (type %u)", *size, *type);
      return FALSE;
    }
  if (*size > end - off)
    {
      fail (rd, error, FLAME_ERROR_PARSE, off, "a record of %" G_GSIZE_FORMAT
            " bytes (type %u) is cut short: the file ends %" G_GSIZE_FORMAT
            " bytes later", *size, *type, end - off);
      return FALSE;
    }
  return TRUE;
}

/* Records in [start, end). */
static gboolean
read_records (Reader  *rd,
              gsize    start,
              gsize    end,
              GError **error)
{
  gsize off = start;

  while (off < end)
    {
      guint32 type;
      gsize size;

      if (!flame_input_tick (rd->in, off, error))
        return FALSE;
      /* what lies well behind: records are queued for one round at most,
       * and a page read again comes back from the file */
      if (off >= rd->released + 2 * RELEASE_LAG)
        {
          rd->released = off - RELEASE_LAG;
          flame_mapped_release (rd->in->data, rd->released);
        }
      if (!read_record_header (rd, off, end, &type, &size, error) ||
          !on_record (rd, off, error))
        return FALSE;
      off += size;

      /* data that follows its record outside of it */
      if ((type == REC_AUXTRACE && size >= 16) ||
          (type == REC_HEADER_TRACING_DATA && rd->pipe && size >= 12))
        {
          const guint8 *r = rd->file + off - size;
          guint64 extra = type == REC_AUXTRACE ? rd64 (r + 8) : rd32 (r + 8);

          if (type == REC_HEADER_TRACING_DATA)
            extra = (extra + 7) & ~(guint64) 7;
          if (extra > end - off)
            {
              fail (rd, error, FLAME_ERROR_PARSE, off - size, "the %" G_GUINT64_FORMAT
                    " bytes that follow this record are cut short", extra);
              return FALSE;
            }
          off += extra;
        }
    }
  return flush (rd, G_MAXUINT64, error);
}

static gboolean
check_section (Reader        *rd,
               gsize          where,
               const char    *what,
               gsize         *offset,
               gsize         *size,
               GError       **error)
{
  guint64 o = rd64 (rd->file + where), s = rd64 (rd->file + where + 8);

  if (o > rd->len || s > rd->len - o)
    {
      fail (rd, error, FLAME_ERROR_PARSE, where,
            "the %s section (%" G_GUINT64_FORMAT " bytes at byte %" G_GUINT64_FORMAT
            ") lies past the end of the file (%" G_GSIZE_FORMAT " bytes)",
            what, s, o, rd->len);
      return FALSE;
    }
  *offset = o;
  *size = s;
  return TRUE;
}

/* The attribute section: one perf_event_attr (@attr_size bytes, the
 * last 16 the section of its sample ids) per event */
static gboolean
read_attrs (Reader  *rd,
            gsize    attrs_off,
            gsize    attrs_size,
            gsize    attr_size,
            GError **error)
{
  for (gsize i = 0; i + attr_size <= attrs_size; i += attr_size)
    {
      const guint8 *a = rd->file + attrs_off + i;
      gsize ids_off, ids_size;

      if (!check_section (rd, attrs_off + i + attr_size - 16, "sample id", &ids_off,
                          &ids_size, error))
        return FALSE;
      if (!add_attr (rd, a, attr_size - 16, attrs_off + i, rd->file + ids_off, ids_size / 8,
                     error))
        return FALSE;
    }
  if (rd->attrs->len == 0)
    {
      fail (rd, error, FLAME_ERROR_PARSE, 24, "the file describes no event");
      return FALSE;
    }
  return TRUE;
}

/* The feature sections, one per bit set in the header, listed at
 * @feat_off (after the data) */
static gboolean
read_features (Reader  *rd,
               gsize    feat_off,
               GError **error)
{
  for (guint feat = 0, n = 0; feat < 256; feat++)
    {
      gsize off, size;

      if (!(rd->file[72 + feat / 8] & (1u << (feat % 8))))
        continue;
      if (feat_off + 16 * (n + 1) > rd->len)
        {
          fail (rd, error, FLAME_ERROR_PARSE, feat_off + 16 * n,
                "the table of feature sections is cut short");
          return FALSE;
        }
      if (!check_section (rd, feat_off + 16 * n, "feature", &off, &size, error) ||
          !read_feature (rd, feat, rd->file + off, size, off, error))
        return FALSE;
      n++;
    }
  return TRUE;
}

static gboolean
read_file_mode (Reader  *rd,
                GError **error)
{
  guint64 header_size, attr_size;
  gsize attrs_off, attrs_size, data_off, data_size;

  if (rd->len < FILE_HEADER_SIZE)
    {
      fail (rd, error, FLAME_ERROR_PARSE, rd->len, "the perf.data header is cut short "
            "(%" G_GSIZE_FORMAT " of %d bytes)", rd->len, FILE_HEADER_SIZE);
      return FALSE;
    }
  header_size = rd64 (rd->file + 8);
  attr_size = rd64 (rd->file + 16);
  if (header_size < FILE_HEADER_SIZE || header_size > rd->len)
    {
      fail (rd, error, FLAME_ERROR_PARSE, 8, "a header size of %" G_GUINT64_FORMAT " bytes",
            header_size);
      return FALSE;
    }
  if (!check_section (rd, 24, "attribute", &attrs_off, &attrs_size, error) ||
      !check_section (rd, 40, "data", &data_off, &data_size, error))
    return FALSE;
  if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 1 << 16)
    {
      fail (rd, error, FLAME_ERROR_PARSE, 16, "an attribute size of %" G_GUINT64_FORMAT
            " bytes", attr_size);
      return FALSE;
    }
  if (!read_attrs (rd, attrs_off, attrs_size, attr_size, error) ||
      !read_features (rd, data_off + data_size, error))
    return FALSE;
  return read_records (rd, data_off, data_off + data_size, error);
}

static void
reader_init (Reader                  *rd,
             const FlamePerfOptions  *options,
             FlamePerfStackFunc       func,
             gpointer                 user_data,
             FlamePerfStats          *stats)
{
  rd->attrs = g_array_new (FALSE, TRUE, sizeof (Attr));
  rd->ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  rd->strings = g_string_chunk_new (4096);
  rd->interned = g_hash_table_new (g_str_hash, g_str_equal);
  rd->processes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, process_free);
  rd->comms = g_hash_table_new (g_direct_hash, g_direct_equal);
  rd->build_ids = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) g_bytes_unref);
  rd->queue = g_array_new (FALSE, FALSE, sizeof (Queued));
  rd->builder = flame_perf_builder_new (rd->in, TRUE, options, func, user_data, stats);
  rd->resolver = flame_resolver_get_default ();
}

/* What a good load skipped, said once each */
static void
warn_skipped (Reader *rd)
{
  if (rd->lost > 0)
    {
      g_autofree char *m = g_strdup_printf ("%s: the recording lost %" G_GUINT64_FORMAT
                                            " events (perf could not keep up)",
                                            rd->in->name, rd->lost);
      warn (rd, m);
    }
  if (rd->unknown_ids > 0)
    {
      g_autofree char *m = g_strdup_printf ("%s: skipped %" G_GUINT64_FORMAT " samples of "
                                            "an event the file does not describe",
                                            rd->in->name, rd->unknown_ids);
      warn (rd, m);
    }
  if (rd->compressed > 0)
    {
      g_autofree char *m = g_strdup_printf ("%s: skipped %" G_GUINT64_FORMAT " compressed "
                                            "record blocks (perf record -z): record without "
                                            "-z, or run `perf inject -i FILE -o OUT` first",
                                            rd->in->name, rd->compressed);
      warn (rd, m);
    }
  if (rd->session != NULL)
    {
      GPtrArray *w = rd->resolver->warnings (rd->session);

      for (guint i = 0; w != NULL && i < w->len; i++)
        warn (rd, g_ptr_array_index (w, i));
    }
}

static void
reader_clear (Reader *rd)
{
  flame_perf_builder_free (rd->builder);
  /* spaces belong to the session: free them first */
  {
    GHashTableIter iter;
    gpointer proc;

    g_hash_table_iter_init (&iter, rd->processes);
    while (g_hash_table_iter_next (&iter, NULL, &proc))
      process_forget_space (rd, proc);
  }
  g_hash_table_unref (rd->processes);
  if (rd->session != NULL)
    rd->resolver->session_free (rd->session);
  for (guint i = 0; i < rd->attrs->len; i++)
    g_free (g_array_index (rd->attrs, Attr, i).name);
  g_array_unref (rd->attrs);
  g_hash_table_unref (rd->ids);
  g_hash_table_unref (rd->build_ids);
  g_hash_table_unref (rd->interned);
  g_hash_table_unref (rd->comms);
  g_string_chunk_free (rd->strings);
  g_array_unref (rd->queue);
}

/**
 * flame_perfdata_parse:
 *
 * Reads a file- or pipe-mode perf.data, as flame_perf_parse reads perf
 * script output: the same options, stats and callback.
 */
gboolean
flame_perfdata_parse (FlameInput              *in,
                      const FlamePerfOptions  *options,
                      FlamePerfStackFunc       func,
                      gpointer                 user_data,
                      FlamePerfStats          *stats,
                      GError                 **error)
{
  Reader rd = { 0 };
  gboolean ok = FALSE;

  rd.in = in;
  rd.file = (const guint8 *) in->data;
  rd.len = in->len;
  rd.stats = stats;
  if (rd.len >= 8 && memcmp (rd.file, "2ELIFREP", 8) == 0)
    {
      flame_input_set_error_at_byte (in, error, FLAME_ERROR_PARSE, 0,
                                     "a big-endian perf.data file, which Flamediff does not "
                                     "read (convert it with `perf script` on that machine)");
      return FALSE;
    }

  reader_init (&rd, options, func, user_data, stats);

  if (rd.len >= 16 && rd64 (rd.file + 8) == PIPE_HEADER_SIZE)
    {
      rd.pipe = TRUE;
      ok = read_records (&rd, PIPE_HEADER_SIZE, rd.len, error);
    }
  else
    {
      /* the session starts once the kernel's _text is known, from the
       * records: a file-mode load reads the attributes first */
      ok = read_file_mode (&rd, error);
    }

  if (ok)
    warn_skipped (&rd);

  reader_clear (&rd);
  return ok;
}
