/* flame-sysprof.c: Sysprof capture files (.syscap).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A capture is a 256-byte header and a sequence of frames, each with a
 * 24-byte head (length, cpu, pid, time, type). The loader reads:
 *
 *  - SAMPLE frames (perf callchains, CPU) and ALLOCATION frames
 *    (memprof, LD_PRELOAD): the two kinds of stacks, chosen as a pprof
 *    sample type ("samples/count", "alloc_space/bytes",
 *    "alloc_objects/count");
 *  - PROCESS (command lines: the root frame, named as perf names a
 *    process), FORK (a child that did not exec uses its parent's maps),
 *    MAP (which file is mapped where) and JITMAP (names of JIT code);
 *  - FILE_CHUNK frames: "__symbols__" / "__symbols__.gz", the symbols
 *    Sysprof (45 and later) resolved while recording and bundled in the
 *    capture, and "/proc/kallsyms(.gz)", the kernel's symbol table.
 *
 * Symbols come at the end of a capture, so the first pass collects the
 * tables and the offsets of the stacks, and the second resolves each
 * address: the bundle by (pid, address), the kernel's table for kernel
 * addresses, else the mapped file's name in brackets ("[libc.so.6]"),
 * as the perf script loader names a symbol perf could not resolve.
 * Stacks are leaf first, with perf's context markers between kernel and
 * user frames.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-error.h"
#include "flame-le.h"
#include "flame-resolver.h"
#include "flame-search.h"
#include "flame-sysprof.h"

#define MAGIC          0xfdca975eu
#define HEADER_SIZE    256
#define FRAME_HEAD     24
#define PACKED_SYMBOL  32
#define CHUNK_DATA     284  /* head + flags/len + path[256] */
#define JITMAP_MARK    G_GUINT64_CONSTANT (0xe000000000000000)
#define CONTEXT_MAX    ((guint64) -4095)
#define CONTEXT_KERNEL ((guint64) -128)
#define COMM_LEN       15   /* perf's comm: TASK_COMM_LEN - 1 */
#define FORK_HOPS      8    /* forks followed back to find a parent's maps */

enum
{
  TYPE_SAMPLE = 2,
  TYPE_MAP = 3,
  TYPE_PROCESS = 4,
  TYPE_FORK = 5,
  TYPE_JITMAP = 7,
  TYPE_FILE_CHUNK = 13,
  TYPE_ALLOCATION = 14,
};

typedef enum
{
  KIND_CPU,
  KIND_ALLOC_SPACE,
  KIND_ALLOC_OBJECTS,
  KIND_PEAK,          /* the blocks live at the peak: bytes */
  KIND_LEAKED,        /* the blocks never freed: bytes */
} Kind;

typedef struct
{
  gint32  pid;
  guint64 start;
  guint64 end;
  guint64 offset;
  gsize   name;   /* offset of the file name in the capture */
} Map;

typedef struct
{
  guint64 addr_begin;
  guint64 addr_end;
  gint32  pid;
  guint32 name;   /* offset of the name in the bundle */
} Symbol;

typedef struct
{
  guint64 addr;
  gsize   name;   /* offset of the name in the kernel's table */
  guint32 len;
} KernelSymbol;
G_STATIC_ASSERT (G_STRUCT_OFFSET (KernelSymbol, addr) == 0);

typedef struct
{
  guint64 addr;
  gsize   name;   /* offset of the name in the capture */
} JitSymbol;
G_STATIC_ASSERT (G_STRUCT_OFFSET (JitSymbol, addr) == 0);

typedef struct
{
  gint32  pid;
  guint64 addr;
  guint32 frame;  /* interned frame + 1; 0: empty slot */
} CacheSlot;

typedef struct
{
  FlameInput   *in;
  const guint8 *file;
  gsize         len;
  FlameProfile *profile;

  GArray       *samples;      /* gsize offsets of SAMPLE frames */
  GArray       *allocations;  /* gsize offsets of ALLOCATION frames (size > 0) */
  GArray       *frees;        /* gsize offsets of ALLOCATION frames of frees (size <= 0) */
  GArray       *peak_blocks;  /* of allocations, those live at the peak (replay_memory()) */
  GArray       *leaked_blocks;  /* of allocations, those never freed */
  GArray       *maps;         /* Map, sorted by (pid, start) */
  GArray       *jit;          /* JitSymbol, sorted by addr */
  GHashTable   *comms;        /* pid → root frame name */
  GHashTable   *parents;      /* child pid → parent pid */
  GByteArray   *bundle_raw;
  gboolean      bundle_gz;
  GByteArray   *kallsyms_raw;
  gboolean      kallsyms_gz;

  GBytes       *bundle;
  Symbol       *symbols;
  guint         n_symbols;
  GBytes       *kallsyms;
  GArray       *kernel;       /* KernelSymbol, sorted by addr */

  CacheSlot    *cache;
  guint         cache_mask;
  guint         cache_used;
  GArray       *ids;
  GString      *name;
  guint64       unresolved;
  guint64       unmapped;     /* of those, not in any mapped file */
  guint64       resolved;
  guint64       symbolized;   /* of those, by the program's symbolizer */

  /* Addresses the bundle does not name go to the symbolizer the program
   * registered (flame-resolver.h), one address space per pid that has
   * maps; NULL: none registered (the fuzz harness), named by their file */
  const FlameResolver *resolver;
  gpointer      session;
  GHashTable   *spaces;       /* pid → the resolver's space */
} Loader;

gboolean
flame_sysprof_sniff (const char *data,
                     gsize       len)
{
  return len >= 8 && rd32 ((const guint8 *) data) == MAGIC;
}

static void
loader_clear (Loader *ld)
{
  g_clear_object (&ld->profile);
  g_clear_pointer (&ld->samples, g_array_unref);
  g_clear_pointer (&ld->allocations, g_array_unref);
  g_clear_pointer (&ld->frees, g_array_unref);
  g_clear_pointer (&ld->peak_blocks, g_array_unref);
  g_clear_pointer (&ld->leaked_blocks, g_array_unref);
  g_clear_pointer (&ld->maps, g_array_unref);
  g_clear_pointer (&ld->jit, g_array_unref);
  g_clear_pointer (&ld->comms, g_hash_table_unref);
  g_clear_pointer (&ld->parents, g_hash_table_unref);
  g_clear_pointer (&ld->bundle_raw, g_byte_array_unref);
  g_clear_pointer (&ld->kallsyms_raw, g_byte_array_unref);
  g_clear_pointer (&ld->bundle, g_bytes_unref);
  g_clear_pointer (&ld->symbols, g_free);
  g_clear_pointer (&ld->kallsyms, g_bytes_unref);
  g_clear_pointer (&ld->kernel, g_array_unref);
  g_clear_pointer (&ld->cache, g_free);
  g_clear_pointer (&ld->ids, g_array_unref);
  if (ld->spaces != NULL)
    {
      GHashTableIter iter;
      gpointer space;

      g_hash_table_iter_init (&iter, ld->spaces);
      while (g_hash_table_iter_next (&iter, NULL, &space))
        ld->resolver->space_free (space);
      g_clear_pointer (&ld->spaces, g_hash_table_unref);
    }
  if (ld->session != NULL)
    ld->resolver->session_free (ld->session);
  ld->session = NULL;
  if (ld->name != NULL)
    g_string_free (ld->name, TRUE);
  ld->name = NULL;
}

/* The NUL-terminated string at @at, ending before @end; NULL if none. */
static const char *
string_in (const guint8 *at,
           const guint8 *end,
           gsize        *len)
{
  const guint8 *nul;

  if (at >= end)
    return NULL;
  nul = memchr (at, 0, end - at);
  if (nul == NULL)
    return NULL;
  *len = nul - at;
  return (const char *) at;
}

/* perf's comm for a command line: the base name of argv[0], 15 bytes,
 * spaces as '_' (the perf script loader's root frame) */
static char *
comm_for (const char *cmdline,
          gsize       len)
{
  const char *end = memchr (cmdline, ' ', len);
  const char *base = cmdline;
  gsize n;
  char *comm;

  if (end == NULL)
    end = cmdline + len;
  for (const char *p = cmdline; p < end; p++)
    if (*p == '/')
      base = p + 1;
  n = MIN ((gsize) (end - base), COMM_LEN);
  comm = g_strndup (base, n);
  g_strdelimit (comm, " ", '_');
  return comm;
}

static void
add_jitmap (Loader       *ld,
            const guint8 *p,
            const guint8 *end,
            guint32       n)
{
  for (guint32 i = 0; i < n && p + 8 < end; i++)
    {
      JitSymbol s = { rd64 (p), (p + 8) - ld->file };
      gsize name_len;

      if (string_in (p + 8, end, &name_len) == NULL)
        return;
      g_array_append_val (ld->jit, s);
      p += 8 + name_len + 1;
    }
}

static void
add_chunk (Loader       *ld,
           const guint8 *frame,
           guint16       flen)
{
  guint32 flags = rd32 (frame + FRAME_HEAD);
  guint16 n = flags >> 16;
  const char *path = (const char *) frame + FRAME_HEAD + 4;
  gsize path_len = strnlen (path, 256);
  GByteArray **into = NULL;
  gboolean gz = path_len > 3 && memcmp (path + path_len - 3, ".gz", 3) == 0;
  gsize base_len = gz ? path_len - 3 : path_len;

  if (n > flen - CHUNK_DATA)
    n = flen - CHUNK_DATA;
  if (base_len == 11 && memcmp (path, "__symbols__", 11) == 0)
    {
      into = &ld->bundle_raw;
      ld->bundle_gz = gz;
    }
  else if (base_len == 14 && memcmp (path, "/proc/kallsyms", 14) == 0)
    {
      into = &ld->kallsyms_raw;
      ld->kallsyms_gz = gz;
    }
  if (into == NULL)
    return;
  if (*into == NULL)
    *into = g_byte_array_new ();
  g_byte_array_append (*into, frame + CHUNK_DATA, n);
}

/* A map frame: the range of a file in a process */
static void
note_map (Loader       *ld,
          gsize         at,
          const guint8 *f,
          guint16       flen,
          gint32        pid)
{
  gsize name_len;
  Map m;

  if (flen <= 56)
    return;
  m = (Map) { pid, rd64 (f + 24), rd64 (f + 32), rd64 (f + 40), at + 56 };
  if (m.end > m.start && string_in (f + 56, f + flen, &name_len) != NULL)
    g_array_append_val (ld->maps, m);
}

/* A process frame: its command line, the process's name */
static void
note_process (Loader       *ld,
              const guint8 *f,
              guint16       flen,
              gint32        pid)
{
  gsize cmd_len;
  const char *cmd = string_in (f + FRAME_HEAD, f + flen, &cmd_len);

  if (cmd != NULL && cmd_len > 0)
    g_hash_table_insert (ld->comms, GINT_TO_POINTER (pid), comm_for (cmd, cmd_len));
}

/* Collects what the frame at @at (@flen bytes, all in the file) adds to
 * the tables, or its offset when it is a stack; frames too short for
 * their kind are skipped */
static void
note_frame (Loader       *ld,
            gsize         at,
            const guint8 *f,
            guint16       flen)
{
  gint32 pid = (gint32) rd32 (f + 4);

  switch (f[16])
    {
    case TYPE_SAMPLE:
      if (flen >= 32 && (gsize) (rd32 (f + 24) & 0xffff) * 8 <= (gsize) flen - 32)
        g_array_append_val (ld->samples, at);
      break;
    case TYPE_ALLOCATION:
      if (flen >= 48 && (gsize) (rd32 (f + 44) & 0xffff) * 8 <= (gsize) flen - 48)
        g_array_append_val ((gint64) rd64 (f + 32) > 0 ? ld->allocations : ld->frees, at);
      break;
    case TYPE_MAP:
      note_map (ld, at, f, flen, pid);
      break;
    case TYPE_PROCESS:
      note_process (ld, f, flen, pid);
      break;
    case TYPE_FORK:
      if (flen >= 28)
        g_hash_table_insert (ld->parents, GINT_TO_POINTER ((gint32) rd32 (f + 24)),
                             GINT_TO_POINTER (pid));
      break;
    case TYPE_JITMAP:
      if (flen >= 28)
        add_jitmap (ld, f + 28, f + flen, rd32 (f + 24));
      break;
    case TYPE_FILE_CHUNK:
      if (flen >= CHUNK_DATA)
        add_chunk (ld, f, flen);
      break;
    default:
      break;
    }
}

/* A capture that ends inside the frame at @at: what came before is loaded */
static gboolean
warn_cut (Loader *ld,
          gsize   at)
{
  flame_profile_add_warning (ld->profile, "%s: byte %" G_GSIZE_FORMAT ": the capture "
                             "ends inside a frame (an unfinished recording?)",
                             ld->in->name, at);
  return TRUE;
}

/* The first pass: every frame's head checked, the tables and the
 * stacks' offsets collected. It is the first half of the progress, the
 * stacks the second. */
static gboolean
scan_frames (Loader  *ld,
             GError **error)
{
  gsize at = HEADER_SIZE;

  while (at < ld->len)
    {
      const guint8 *f = ld->file + at;
      guint16 flen;

      if (!flame_input_tick (ld->in, at / 2, error))
        return FALSE;
      if (ld->len - at < FRAME_HEAD)
        return warn_cut (ld, at);
      flen = rd16 (f);
      if (flen < FRAME_HEAD)
        {
          flame_input_set_error_at_byte (ld->in, error, FLAME_ERROR_PARSE, at,
                                         "a frame of %u bytes, shorter than its %d-byte head",
                                         flen, FRAME_HEAD);
          return FALSE;
        }
      if (flen > ld->len - at)
        return warn_cut (ld, at);
      note_frame (ld, at, f, flen);
      at += flen;
    }
  return TRUE;
}

static int
compare_maps (gconstpointer a,
              gconstpointer b)
{
  const Map *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  /* the later mapping of the same start wins: keep file order */
  return x->name < y->name ? -1 : x->name > y->name;
}

static int
compare_symbols (gconstpointer a,
                 gconstpointer b)
{
  const Symbol *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return x->addr_begin < y->addr_begin ? -1 : x->addr_begin > y->addr_begin;
}

static int
compare_addr (gconstpointer a,
              gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* A chunk as bytes, gzip undone when its name says ".gz". */
static GBytes *
chunk_bytes (Loader      *ld,
             GByteArray **raw,
             gboolean     gz,
             const char  *what)
{
  g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (raw));
  g_autoptr(GError) error = NULL;
  GBytes *decoded;

  if (!gz)
    return g_steal_pointer (&bytes);
  decoded = flame_decode_bytes (what, bytes, ld->in->cancellable, &error);
  if (decoded == NULL)
    flame_profile_add_warning (ld->profile, "%s: the capture's %s cannot be read (%s); "
                               "its addresses are named by the mapped files",
                               ld->in->name, what, error->message);
  return decoded;
}

/* The bundle: packed symbols up to an all-zero one, then their names. */
static void
read_bundle (Loader *ld)
{
  const guint8 *data;
  gsize len;
  GArray *symbols;

  if (ld->bundle_raw == NULL)
    return;
  ld->bundle = chunk_bytes (ld, &ld->bundle_raw, ld->bundle_gz, "__symbols__");
  if (ld->bundle == NULL)
    return;
  data = g_bytes_get_data (ld->bundle, &len);
  symbols = g_array_new (FALSE, FALSE, sizeof (Symbol));
  for (gsize at = 0; at + PACKED_SYMBOL <= len; at += PACKED_SYMBOL)
    {
      const guint8 *p = data + at;
      Symbol s = { rd64 (p), rd64 (p + 8), (gint32) rd32 (p + 16), rd32 (p + 20) };
      gsize name_len;

      if (s.addr_begin == 0 && s.addr_end == 0 && s.pid == 0 && s.name == 0)
        break;
      if (s.name == 0 || s.addr_end <= s.addr_begin ||
          string_in (data + MIN (s.name, len), data + len, &name_len) == NULL)
        continue;
      g_array_append_val (symbols, s);
    }
  g_array_sort (symbols, compare_symbols);
  ld->n_symbols = symbols->len;
  ld->symbols = (Symbol *) (gpointer) g_array_free (symbols, FALSE);
}

/* "ffffffff81000000 T _stext [module]": code symbols, sorted */
static void
read_kallsyms (Loader *ld)
{
  const char *text;
  gsize len, pos = 0;

  if (ld->kallsyms_raw == NULL)
    return;
  ld->kallsyms = chunk_bytes (ld, &ld->kallsyms_raw, ld->kallsyms_gz, "/proc/kallsyms");
  if (ld->kallsyms == NULL)
    return;
  text = g_bytes_get_data (ld->kallsyms, &len);
  ld->kernel = g_array_new (FALSE, FALSE, sizeof (KernelSymbol));
  while (pos < len)
    {
      gsize line_len, name_len;
      const char *line = flame_next_line (text, len, &pos, &line_len);
      const char *name;
      char *end;
      KernelSymbol k;

      if (line_len < 20 || line[16] != ' ' || line[18] != ' ' ||
          strchr ("tTwW", line[17]) == NULL)
        continue;
      k.addr = g_ascii_strtoull (line, &end, 16);
      if (end != line + 16 || k.addr == 0)
        continue;
      name = line + 19;
      name_len = line_len - 19;
      for (gsize i = 0; i < name_len; i++)
        if (name[i] == ' ' || name[i] == '\t')
          {
            name_len = i;
            break;
          }
      k.name = name - text;
      k.len = (guint32) MIN (name_len, FLAME_MAX_NAME_LEN);
      g_array_append_val (ld->kernel, k);
    }
  g_array_sort (ld->kernel, compare_addr);
}

/* Where the maps and the bundle's symbols are sought: they are sorted by
 * pid, then start */
typedef struct
{
  gint32  pid;
  guint64 addr;
} PidAddr;

static gboolean
symbol_at_or_before (gconstpointer entry,
                     gconstpointer key)
{
  const Symbol *s = entry;
  const PidAddr *k = key;

  return s->pid < k->pid || (s->pid == k->pid && s->addr_begin <= k->addr);
}

static gboolean
map_at_or_before (gconstpointer entry,
                  gconstpointer key)
{
  const Map *m = entry;
  const PidAddr *k = key;

  return m->pid < k->pid || (m->pid == k->pid && m->start <= k->addr);
}

static const Symbol *
lookup_bundle (Loader  *ld,
               gint32   pid,
               guint64  addr)
{
  PidAddr key = { pid, addr };
  /* one past the last symbol at or before (pid, addr) */
  gsize lo = flame_partition_point (ld->symbols, ld->n_symbols, sizeof (Symbol),
                                    symbol_at_or_before, &key);

  if (lo == 0)
    return NULL;
  if (ld->symbols[lo - 1].pid != pid || addr >= ld->symbols[lo - 1].addr_end)
    return NULL;
  return &ld->symbols[lo - 1];
}

/* Moves *@pid to its parent: a child that did not exec shares its
 * parent's maps, symbols and name. FALSE when it has none. Callers stop
 * after FORK_HOPS, so that forks in a circle (a corrupt file) end. */
static gboolean
to_parent (Loader *ld,
           gint32 *pid)
{
  gpointer parent;

  if (!g_hash_table_lookup_extended (ld->parents, GINT_TO_POINTER (*pid), NULL, &parent) ||
      GPOINTER_TO_INT (parent) == *pid)
    return FALSE;
  *pid = GPOINTER_TO_INT (parent);
  return TRUE;
}

static const Map *
lookup_map (Loader  *ld,
            gint32   pid,
            guint64  addr)
{
  for (guint hops = 0; hops < FORK_HOPS; hops++)
    {
      const Map *maps = (const Map *) (gpointer) ld->maps->data;
      PidAddr key = { pid, addr };
      gsize lo = flame_partition_point (maps, ld->maps->len, sizeof (Map),
                                        map_at_or_before, &key);

      /* overlapping maps of one pid: the nearest that contains addr */
      for (gsize i = lo; i > 0 && maps[i - 1].pid == pid; i--)
        if (addr < maps[i - 1].end)
          return &maps[i - 1];
        else if (lo - i > 16)
          break;
      if (!to_parent (ld, &pid))
        return NULL;
    }
  return NULL;
}

static const char *
lookup_kernel (Loader  *ld,
               guint64  addr,
               gsize   *len)
{
  const KernelSymbol *k;
  gsize lo;

  if (ld->kernel == NULL)
    return NULL;
  k = (const KernelSymbol *) (gpointer) ld->kernel->data;
  lo = flame_partition_point (k, ld->kernel->len, sizeof (KernelSymbol),
                              flame_starts_at_or_before, &addr);
  if (lo == 0)
    return NULL;
  *len = k[lo - 1].len;
  return (const char *) g_bytes_get_data (ld->kallsyms, NULL) + k[lo - 1].name;
}

static const char *
lookup_jit (Loader  *ld,
            guint64  addr)
{
  const JitSymbol *j = (const JitSymbol *) (gpointer) ld->jit->data;
  gsize lo = flame_partition_point (j, ld->jit->len, sizeof (JitSymbol),
                                    flame_starts_before, &addr);

  if (lo < ld->jit->len && j[lo].addr == addr)
    return (const char *) ld->file + j[lo].name;
  return NULL;
}

/* The symbolizer's name for @addr in map @m, or NULL. Each pid's space
 * gets all of that pid's maps, each file at its load bias (start −
 * offset), before its first lookup. Sysprof names an address as it is,
 * the sampled one and return addresses alike; so does this. */
static const char *
symbolize (Loader    *ld,
           const Map *m,
           guint64    addr)
{
  const FlameResolvedFrame *frames;
  gpointer space;
  guint n;

  if (ld->resolver == NULL)
    return NULL;
  if (ld->session == NULL)
    {
      ld->session = ld->resolver->session_new (0);
      ld->spaces = g_hash_table_new (NULL, NULL);
    }
  space = g_hash_table_lookup (ld->spaces, GINT_TO_POINTER (m->pid));
  if (space == NULL)
    {
      const Map *maps = (const Map *) (gpointer) ld->maps->data;

      space = ld->resolver->space_new (ld->session);
      g_hash_table_insert (ld->spaces, GINT_TO_POINTER (m->pid), space);
      for (guint i = 0; i < ld->maps->len; i++)
        {
          const char *path = (const char *) ld->file + maps[i].name;

          if (maps[i].pid == m->pid && path[0] == '/' && maps[i].start >= maps[i].offset)
            ld->resolver->add_module (space, path, maps[i].start - maps[i].offset, NULL, 0);
        }
    }
  n = ld->resolver->lookup (space, addr, TRUE, &frames);
  /* the function the address is in, not what was inlined into it */
  if (n == 0 || frames[n - 1].name == NULL || strcmp (frames[n - 1].name, "[unknown]") == 0)
    return NULL;
  return frames[n - 1].name;
}

/* The frame name of one address into ld->name. */
static void
name_address (Loader   *ld,
              gint32    pid,
              guint64   addr,
              gboolean  kernel)
{
  const Symbol *s;
  const Map *m;
  const char *name;
  gsize len;

  g_string_truncate (ld->name, 0);
  if ((addr & JITMAP_MARK) == JITMAP_MARK && (name = lookup_jit (ld, addr)) != NULL)
    {
      g_string_append (ld->name, name);
      ld->resolved++;
      return;
    }
  s = lookup_bundle (ld, pid, addr);
  for (guint hops = 0; s == NULL && hops < FORK_HOPS && to_parent (ld, &pid); hops++)
    s = lookup_bundle (ld, pid, addr);
  if (s != NULL)
    {
      g_string_append (ld->name, (const char *) g_bytes_get_data (ld->bundle, NULL) + s->name);
      ld->resolved++;
      return;
    }
  if (kernel)
    {
      if ((name = lookup_kernel (ld, addr, &len)) != NULL)
        {
          g_string_append_len (ld->name, name, len);
          ld->resolved++;
        }
      else
        {
          g_string_append (ld->name, "[[kernel.kallsyms]]");
          ld->unresolved++;
        }
      return;
    }
  if ((m = lookup_map (ld, pid, addr)) != NULL && (name = symbolize (ld, m, addr)) != NULL)
    {
      g_string_append (ld->name, name);
      ld->resolved++;
      ld->symbolized++;
      return;
    }
  ld->unresolved++;
  if (m != NULL)
    {
      const char *path = (const char *) ld->file + m->name;
      const char *base = strrchr (path, '/');

      g_string_append_printf (ld->name, "[%s]", base ? base + 1 : path);
      return;
    }
  ld->unmapped++;
  g_string_append (ld->name, "[unknown]");
}

static void
cache_grow (Loader *ld)
{
  guint old_size = ld->cache ? ld->cache_mask + 1 : 0;
  CacheSlot *old = ld->cache;
  guint size = old_size ? old_size * 2 : 4096;

  ld->cache = g_new0 (CacheSlot, size);
  ld->cache_mask = size - 1;
  for (guint i = 0; i < old_size; i++)
    if (old[i].frame != 0)
      {
        guint h = (guint) ((old[i].addr * 0x9e3779b97f4a7c15u) >> 32 ^ (guint) old[i].pid);

        while (ld->cache[h & ld->cache_mask].frame != 0)
          h++;
        ld->cache[h & ld->cache_mask] = old[i];
      }
  g_free (old);
}

/* The interned frame of (pid, address): each distinct one is named once. */
static guint32
frame_for (Loader   *ld,
           gint32    pid,
           guint64   addr,
           gboolean  kernel)
{
  guint h = (guint) ((addr * 0x9e3779b97f4a7c15u) >> 32 ^ (guint) pid);
  CacheSlot *slot;
  guint32 id;

  if (ld->cache == NULL || (ld->cache_used + 1) * 2 > ld->cache_mask + 1)
    cache_grow (ld);
  while ((slot = &ld->cache[h & ld->cache_mask])->frame != 0)
    {
      if (slot->addr == addr && slot->pid == pid)
        return slot->frame - 1;
      h++;
    }
  name_address (ld, pid, addr, kernel);
  id = flame_profile_intern_frame (ld->profile, ld->name->str,
                                   MIN (ld->name->len, FLAME_MAX_NAME_LEN), NULL, 0, 0, 0);
  *slot = (CacheSlot) { pid, addr, id + 1 };
  ld->cache_used++;
  return id;
}

static guint32
root_for (Loader *ld,
          gint32  pid)
{
  const char *comm = NULL;

  for (guint hops = 0; hops < FORK_HOPS; hops++)
    {
      comm = g_hash_table_lookup (ld->comms, GINT_TO_POINTER (pid));
      if (comm != NULL || !to_parent (ld, &pid))
        break;
    }
  if (comm == NULL)
    {
      g_string_printf (ld->name, "[pid %d]", pid);
      comm = ld->name->str;
    }
  return flame_profile_intern_frame (ld->profile, comm, strlen (comm), NULL, 0, 0, 0);
}

/* One stack: root (the process), then the frames from the outermost. */
static void
add_stack (Loader        *ld,
           gint32         pid,
           gint32         tid,
           const guint8  *addrs,
           guint          n,
           gdouble        weight)
{
  guint32 *ids;
  guint depth = 0;
  gboolean kernel = FALSE;
  FlameThread *thread;

  g_array_set_size (ld->ids, n + 1);
  ids = (guint32 *) (gpointer) ld->ids->data;
  ids[depth++] = root_for (ld, pid);
  /* the context of each address is set by the marker before it (leaf
   * side), so walk leaf first and fill from the end */
  {
    guint32 *tail = ids + n + 1;
    guint n_tail = 0;

    for (guint i = 0; i < n; i++)
      {
        guint64 addr = rd64 (addrs + 8 * (gsize) i);

        if (addr >= CONTEXT_MAX)
          {
            kernel = addr == CONTEXT_KERNEL;
            continue;
          }
        if (addr == 0)
          continue;
        *--tail = frame_for (ld, pid, addr, kernel);
        n_tail++;
      }
    memmove (ids + depth, tail, n_tail * sizeof (guint32));
    depth += n_tail;
  }
  flame_profile_add_stack (ld->profile, 0, ids, depth, weight);
  flame_profile_add_samples (ld->profile, 0, 1);
  thread = flame_profile_ensure_thread (ld->profile,
                                        flame_frames_get_name (flame_profile_get_frames (
                                                                 ld->profile),
                                                               ids[0]),
                                        pid, tid);
  thread->samples += 1;
}

static gboolean
choose_kind (Loader                  *ld,
             const FlameLoadOptions  *options,
             Kind                    *kind,
             GError                 **error)
{
  /* pprof's names, and our memory recordings' (flame-recorder.h) */
  static const struct { const char *type, *unit; Kind kind; } kinds[] = {
    { "samples", "count", KIND_CPU },
    { "alloc_space", "bytes", KIND_ALLOC_SPACE },
    { "alloc_objects", "count", KIND_ALLOC_OBJECTS },
    { "peak", "bytes", KIND_PEAK },
    { "leaked", "bytes", KIND_LEAKED },
    { "allocated", "bytes", KIND_ALLOC_SPACE },
    { "allocations", "count", KIND_ALLOC_OBJECTS },
  };
  const char *wanted = options ? options->sample_type : NULL;
  g_autoptr(GString) have = g_string_new (NULL);

  if (ld->samples->len > 0)
    g_string_append (have, "samples/count");
  if (ld->allocations->len > 0)
    g_string_append_printf (have, "%salloc_space/bytes, alloc_objects/count, peak/bytes, "
                            "leaked/bytes", have->len ? ", " : "");
  if (wanted == NULL)
    {
      *kind = ld->samples->len > 0 || ld->allocations->len == 0 ? KIND_CPU : KIND_ALLOC_SPACE;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *both = g_strdup_printf ("%s/%s", kinds[i].type, kinds[i].unit);
      gboolean present = kinds[i].kind == KIND_CPU ? ld->samples->len > 0
                                                   : ld->allocations->len > 0;

      if (present && (strcmp (wanted, kinds[i].type) == 0 || strcmp (wanted, both) == 0))
        {
          *kind = kinds[i].kind;
          return TRUE;
        }
    }
  flame_input_set_error (ld->in, error, FLAME_ERROR_INVALID, 0,
                         "no sample type “%s” (the file has: %s)",
                         wanted, have->len ? have->str : "none");
  return FALSE;
}

static gboolean
add_stacks (Loader  *ld,
            Kind     kind,
            GError **error)
{
  GArray *offsets = kind == KIND_CPU ? ld->samples
                    : kind == KIND_PEAK ? ld->peak_blocks
                    : kind == KIND_LEAKED ? ld->leaked_blocks
                                          : ld->allocations;

  for (guint i = 0; i < offsets->len; i++)
    {
      gsize at = g_array_index (offsets, gsize, i);
      const guint8 *f = ld->file + at;
      gint32 pid = (gint32) rd32 (f + 4);

      if (!flame_input_tick (ld->in, ld->len / 2 + at / 2, error))
        return FALSE;
      if (kind == KIND_CPU)
        add_stack (ld, pid, (gint32) rd32 (f + 28), f + 32, rd32 (f + 24) & 0xffff, 1);
      else
        add_stack (ld, pid, (gint32) rd32 (f + 40), f + 48, rd32 (f + 44) & 0xffff,
                   kind == KIND_ALLOC_OBJECTS ? 1 : (gdouble) (gint64) rd64 (f + 32));
    }
  return TRUE;
}

/* An allocation or a free of memprof, for replay_memory() */
typedef struct
{
  gint32  pid;
  guint64 addr;
  gint64  time;
  gsize   at;    /* the frame's offset: file order among events of the same time */
  gint64  size;  /* > 0: an allocation; else a free */
} MemEvent;

/* A change of the live bytes at (@time, @at) */
typedef struct
{
  gint64 time;
  gsize  at;
  gint64 delta;
} LiveDelta;

static int
compare_mem_events (gconstpointer a,
                    gconstpointer b)
{
  const MemEvent *x = a, *y = b;

  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

static int
compare_deltas (gconstpointer a,
                gconstpointer b)
{
  const LiveDelta *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  /* a block replaced at the same address: the old one goes first */
  return x->delta < y->delta ? -1 : x->delta > y->delta;
}

static void
add_event (GArray   *events,
           Loader   *ld,
           gsize     at)
{
  const guint8 *f = ld->file + at;
  MemEvent e = {
    .pid = (gint32) rd32 (f + 4),
    .addr = rd64 (f + 24),
    .time = (gint64) rd64 (f + 8),
    .at = at,
    .size = (gint64) rd64 (f + 32),
  };

  g_array_append_val (events, e);
}

static int
compare_offsets (gconstpointer a,
                 gconstpointer b)
{
  gsize x = *(const gsize *) a, y = *(const gsize *) b;

  return x < y ? -1 : x > y;
}

/* The event that ends the block allocated at @events[@i] (sorted by
 * compare_mem_events()): the next one at its address in its process, a
 * free or an allocation there when the free was not recorded; NULL when
 * the block was never freed */
static const MemEvent *
block_end (GArray *events,
           guint   i)
{
  const MemEvent *e = &g_array_index (events, MemEvent, i);

  if (i + 1 < events->len && e[1].pid == e->pid && e[1].addr == e->addr)
    return e + 1;
  return NULL;
}

/* Sysprof's memprof records every allocation and every free (size 0, or
 * below) with its address and time. Replayed, each block lives from its
 * allocation to the next event at its address in its process (a free,
 * or an allocation there when the free was not recorded); the live
 * bytes of all processes together, in time order, give the peak, and
 * the blocks never freed the leaked bytes. The exact totals go to the
 * metadata, as a memory recording's (flame_memory_get_totals).
 *
 * The changes of the live bytes are totally ordered (one allocation and
 * at most one end per frame, the end first), so the peak is one of
 * them, @top: a second pass keeps the blocks begun by then and not yet
 * ended, whose sizes add up to the peak, in @ld->peak_blocks, and those
 * never freed in @ld->leaked_blocks, both in file order. */
static void
replay_memory (Loader *ld)
{
  g_autoptr(GArray) events = g_array_sized_new (FALSE, FALSE, sizeof (MemEvent),
                                                ld->allocations->len + ld->frees->len);
  g_autoptr(GArray) deltas = g_array_sized_new (FALSE, FALSE, sizeof (LiveDelta),
                                                2 * ld->allocations->len);
  gdouble allocated = 0, leaked = 0, live = 0, peak = 0;
  LiveDelta top = { 0 };
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < ld->allocations->len; i++)
    add_event (events, ld, g_array_index (ld->allocations, gsize, i));
  for (guint i = 0; i < ld->frees->len; i++)
    add_event (events, ld, g_array_index (ld->frees, gsize, i));
  g_array_sort (events, compare_mem_events);
  for (guint i = 0; i < events->len; i++)
    {
      const MemEvent *e = &g_array_index (events, MemEvent, i);
      const MemEvent *next = block_end (events, i);
      LiveDelta d = { e->time, e->at, e->size };

      if (e->size <= 0)
        continue;
      allocated += (gdouble) e->size;
      g_array_append_val (deltas, d);
      if (next != NULL)
        {
          LiveDelta end = { next->time, next->at, -e->size };

          g_array_append_val (deltas, end);
        }
      else
        leaked += (gdouble) e->size;
    }
  g_array_sort (deltas, compare_deltas);
  for (guint i = 0; i < deltas->len; i++)
    {
      live += (gdouble) g_array_index (deltas, LiveDelta, i).delta;
      if (live > peak)
        {
          peak = live;
          top = g_array_index (deltas, LiveDelta, i);
        }
    }
  for (guint i = 0; i < events->len; i++)
    {
      const MemEvent *e = &g_array_index (events, MemEvent, i);
      const MemEvent *next = block_end (events, i);
      LiveDelta begin = { e->time, e->at, e->size };

      if (e->size <= 0)
        continue;
      if (next == NULL)
        g_array_append_val (ld->leaked_blocks, e->at);
      if (peak > 0 && compare_deltas (&begin, &top) <= 0)
        {
          LiveDelta end = { next != NULL ? next->time : 0, next != NULL ? next->at : 0, -e->size };

          if (next == NULL || compare_deltas (&end, &top) > 0)
            g_array_append_val (ld->peak_blocks, e->at);
        }
    }
  g_array_sort (ld->peak_blocks, compare_offsets);
  g_array_sort (ld->leaked_blocks, compare_offsets);
  flame_profile_set_metadata (ld->profile, "memory_allocated_bytes",
                              g_ascii_formatd (num, sizeof num, "%.0f", allocated));
  flame_profile_set_metadata (ld->profile, "memory_allocations",
                              g_ascii_formatd (num, sizeof num, "%.0f",
                                               (gdouble) ld->allocations->len));
  flame_profile_set_metadata (ld->profile, "memory_peak_bytes",
                              g_ascii_formatd (num, sizeof num, "%.0f", peak));
  flame_profile_set_metadata (ld->profile, "memory_leaked_bytes",
                              g_ascii_formatd (num, sizeof num, "%.0f", leaked));
}

static void
describe (Loader *ld,
          Kind    kind)
{
  static const char *const types[] = { "samples/count", "alloc_space/bytes",
                                       "alloc_objects/count", "peak/bytes", "leaked/bytes" };
  char capture_time[65];
  gint64 start = (gint64) rd64 (ld->file + 72), end = (gint64) rd64 (ld->file + 80);

  flame_profile_set_unit (ld->profile, kind == KIND_CPU ? FLAME_UNIT_SAMPLES
                                       : kind == KIND_ALLOC_OBJECTS ? FLAME_UNIT_COUNT
                                                                    : FLAME_UNIT_BYTES);
  flame_profile_set_metadata (ld->profile, "sample-type", types[kind]);
  {
    const char *have[G_N_ELEMENTS (types) + 1] = { NULL };
    guint n = 0;

    if (ld->samples->len > 0)
      have[n++] = types[KIND_CPU];
    if (ld->allocations->len > 0)
      {
        have[n++] = types[KIND_ALLOC_SPACE];
        have[n++] = types[KIND_ALLOC_OBJECTS];
        have[n++] = types[KIND_PEAK];
        have[n++] = types[KIND_LEAKED];
      }
    flame_profile_set_sample_types (ld->profile, have);
  }
  memcpy (capture_time, ld->file + 8, 64);
  capture_time[64] = 0;
  if (capture_time[0] != 0 && g_utf8_validate (capture_time, -1, NULL))
    flame_profile_set_metadata (ld->profile, "capture-time", capture_time);
  {
    char version[8];

    g_snprintf (version, sizeof version, "%u", ld->file[4]);
    flame_profile_set_metadata (ld->profile, "sysprof-format", version);
  }
  flame_profile_set_metadata (ld->profile, "symbols",
                              ld->n_symbols > 0 ? "bundled by Sysprof" : "none bundled");
  if (end > start)
    flame_profile_set_duration_ms (ld->profile, ((gdouble) end - (gdouble) start) / 1e6);
  if (ld->symbolized > 0)
    flame_profile_add_warning (ld->profile, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               " addresses have no symbol in the capture; they are named from "
                               "the files on this computer",
                               ld->in->name, ld->symbolized, ld->unresolved + ld->resolved);
  if (ld->session != NULL)
    {
      GPtrArray *w = ld->resolver->warnings (ld->session);

      for (guint i = 0; w != NULL && i < w->len; i++)
        flame_profile_add_warning (ld->profile, "%s", (const char *) g_ptr_array_index (w, i));
    }
  if (ld->unresolved > ld->unmapped)
    flame_profile_add_warning (ld->profile, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               " addresses have no symbol in the capture; they are named by "
                               "their mapped file",
                               ld->in->name, ld->unresolved - ld->unmapped,
                               ld->unresolved + ld->resolved);
  if (ld->unmapped > 0)
    flame_profile_add_warning (ld->profile, "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               " addresses have no symbol and no mapped file in the capture "
                               "(“[unknown]”); Sysprof records mappings when it records "
                               "with perf", ld->in->name, ld->unmapped,
                               ld->unresolved + ld->resolved);
}

FlameProfile *
flame_sysprof_load (FlameInput              *in,
                    const FlameLoadOptions  *options,
                    GError                 **error)
{
  Loader ld = { 0 };
  FlameProfile *profile = NULL;
  Kind kind;

  ld.in = in;
  ld.file = (const guint8 *) in->data;
  ld.len = in->len;
  if (ld.len < HEADER_SIZE)
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0, "byte %" G_GSIZE_FORMAT
                             ": the capture's header is cut short (%d bytes)", ld.len,
                             HEADER_SIZE);
      return NULL;
    }
  if (!(ld.file[5] & 1))
    {
      flame_input_set_error (in, error, FLAME_ERROR_PARSE, 0,
                             "byte 5: a big-endian Sysprof capture, which Flamediff does not "
                             "read");
      return NULL;
    }
  ld.profile = flame_profile_new (FLAME_FORMAT_SYSPROF, 1);
  ld.samples = g_array_new (FALSE, FALSE, sizeof (gsize));
  ld.allocations = g_array_new (FALSE, FALSE, sizeof (gsize));
  ld.frees = g_array_new (FALSE, FALSE, sizeof (gsize));
  ld.peak_blocks = g_array_new (FALSE, FALSE, sizeof (gsize));
  ld.leaked_blocks = g_array_new (FALSE, FALSE, sizeof (gsize));
  ld.maps = g_array_new (FALSE, FALSE, sizeof (Map));
  ld.jit = g_array_new (FALSE, FALSE, sizeof (JitSymbol));
  ld.comms = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ld.parents = g_hash_table_new (NULL, NULL);
  ld.ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  ld.name = g_string_new (NULL);
  ld.resolver = flame_resolver_get_default ();

  if (!scan_frames (&ld, error) || !choose_kind (&ld, options, &kind, error))
    goto out;
  g_array_sort (ld.maps, compare_maps);
  g_array_sort (ld.jit, compare_addr);
  read_bundle (&ld);
  read_kallsyms (&ld);
  /* the totals, and the blocks of the peak and leaked views */
  if (kind != KIND_CPU)
    replay_memory (&ld);
  if (!add_stacks (&ld, kind, error))
    goto out;
  if ((kind == KIND_CPU ? ld.samples : ld.allocations)->len == 0)
    {
      flame_input_set_error (in, error, FLAME_ERROR_EMPTY, 0,
                             "no CPU samples or allocations in the capture (recorded without "
                             "perf or --memprof?)");
      goto out;
    }
  describe (&ld, kind);
  flame_profile_finish (ld.profile);
  profile = g_steal_pointer (&ld.profile);

out:
  loader_clear (&ld);
  return profile;
}
