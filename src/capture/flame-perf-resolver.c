/* flame-perf-resolver.c: names for the addresses of a perf.data file.
 *
 * User space: one FlameSymbolizer per address space the reader reports,
 * naming from symbol tables only, as perf does (no DWARF inlines),
 * all sharing one cache, so each module file is read once per load; the
 * symbolizer finds debug files by build-id in /usr/lib/debug (and the
 * host's under /run/host in the Flatpak) and asks debuginfod when
 * DEBUGINFOD_URLS is set.
 *
 * The kernel: /proc/kallsyms, only when its _text is where the recording
 * saw it (the same kernel, booted the same way, else the names would be
 * wrong); symbols chosen as perf does: each reaches up to the next,
 * and of several at one address the last (perf stretches the sizeless
 * symbols to the next address before it picks among those at one
 * address, so only the last has a size and wins: "__pi_memset" over
 * "memset", "__x64_sys_vfork" over "__ia32_sys_vfork").
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flame-input.h"
#include "flame-perf-resolver.h"
#include "flame-search.h"
#include "flame-symbolizer.h"

typedef struct
{
  guint64 addr;
  guint32 name;      /* offset in Session.kallsyms */
  guint32 name_len;
  guint32 module;    /* offset, 0: the kernel itself */
  guint32 module_len;
  char    type;
} KernelSymbol;
G_STATIC_ASSERT (G_STRUCT_OFFSET (KernelSymbol, addr) == 0);

typedef struct
{
  FlameSymCache *cache;
  char          *root;
  guint64        kernel_text;
  gboolean       kernel_read;
  char          *kallsyms;
  GArray        *kernel;     /* KernelSymbol, sorted, one per address */
  GString       *name;       /* the last kernel name */
  GString       *module;
  GArray        *frames;     /* FlameResolvedFrame of the last lookup */
  GPtrArray     *warnings;
} Session;

typedef struct
{
  Session         *session;
  FlameSymbolizer *sym;
} Space;

static gpointer
session_new (guint64 kernel_text)
{
  Session *s = g_new0 (Session, 1);

  s->cache = flame_sym_cache_new (NULL);
  /* perf script's names: those of the symbol tables, no inlined frames
   * (so that a perf.data file and its perf script output read the same) */
  flame_sym_cache_set_symtab_only (s->cache, TRUE);
  s->kernel_text = kernel_text;
  s->name = g_string_new (NULL);
  s->module = g_string_new (NULL);
  s->frames = g_array_new (FALSE, FALSE, sizeof (FlameResolvedFrame));
  s->warnings = g_ptr_array_new_with_free_func (g_free);
  /* in the Flatpak the recorded files are the host's */
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS) &&
      g_file_test ("/run/host/usr", G_FILE_TEST_IS_DIR))
    s->root = g_strdup ("/run/host");
  return s;
}

static void
session_free (gpointer data)
{
  Session *s = data;

  flame_sym_cache_unref (s->cache);
  g_free (s->root);
  g_free (s->kallsyms);
  if (s->kernel != NULL)
    g_array_unref (s->kernel);
  g_string_free (s->name, TRUE);
  g_string_free (s->module, TRUE);
  g_array_unref (s->frames);
  g_ptr_array_unref (s->warnings);
  g_free (s);
}

static gpointer
space_new (gpointer session)
{
  Session *s = session;
  Space *sp = g_new0 (Space, 1);

  sp->session = s;
  sp->sym = flame_symbolizer_new_shared (s->cache);
  if (s->root != NULL)
    flame_symbolizer_set_root (sp->sym, s->root);
  return sp;
}

static void
space_free (gpointer space)
{
  Space *sp = space;

  flame_symbolizer_free (sp->sym);
  g_free (sp);
}

static void
add_module (gpointer      space,
            const char   *path,
            guint64       base,
            const guint8 *build_id,
            gsize         build_id_len)
{
  Space *sp = space;

  flame_symbolizer_add_module (sp->sym, path, base, build_id, build_id_len);
}

static guint
lookup (gpointer                   space,
        guint64                    ip,
        gboolean                   leaf,
        const FlameResolvedFrame **frames)
{
  Space *sp = space;
  const FlameSymFrame *sf;
  guint n = flame_symbolizer_lookup (sp->sym, ip, leaf, &sf);

  g_array_set_size (sp->session->frames, n);
  for (guint i = 0; i < n; i++)
    {
      FlameResolvedFrame *f = &g_array_index (sp->session->frames, FlameResolvedFrame, i);

      f->name = sf[i].name;
      f->inlined = sf[i].inlined;
    }
  *frames = (const FlameResolvedFrame *) (gpointer) sp->session->frames->data;
  return n;
}

static int
compare_kernel (const void *x,
                const void *y)
{
  const KernelSymbol *a = x, *b = y;

  if (a->addr != b->addr)
    return a->addr < b->addr ? -1 : 1;
  /* keep the file order among equals: the last is kept */
  return a->name < b->name ? -1 : a->name > b->name;
}

static void
read_kallsyms (Session *s)
{
  gsize len = 0, pos = 0;
  GArray *syms;
  guint64 text = 0;
  guint n = 0;

  s->kernel_read = TRUE;
  if (s->kernel_text == 0)
    {
      g_ptr_array_add (s->warnings, g_strdup ("kernel frames are not named: the recording "
                                              "does not say where its kernel was"));
      return;
    }
  if (!g_file_get_contents ("/proc/kallsyms", &s->kallsyms, &len, NULL) || len > G_MAXUINT32)
    {
      g_ptr_array_add (s->warnings, g_strdup ("kernel frames are not named: /proc/kallsyms "
                                              "cannot be read"));
      return;
    }
  syms = g_array_new (FALSE, FALSE, sizeof (KernelSymbol));
  while (pos < len)
    {
      gsize line_len;
      const char *line = flame_next_line (s->kallsyms, len, &pos, &line_len);
      const char *end = line + line_len, *p, *name;
      char *num_end;
      KernelSymbol k = { 0 };

      k.addr = g_ascii_strtoull (line, &num_end, 16);
      p = num_end;
      if (p == line || p + 3 > end || *p != ' ' || p[2] != ' ')
        continue;
      k.type = p[1];
      name = p + 3;
      p = name;
      while (p < end && *p != ' ' && *p != '\t')
        p++;
      k.name = name - s->kallsyms;
      k.name_len = p - name;
      if (k.name_len == 5 && memcmp (name, "_text", 5) == 0 && text == 0)
        text = k.addr;
      if (k.addr == 0 || strchr ("tTwWdDbB", k.type) == NULL || k.type == 0)
        continue;
      while (p < end && (*p == ' ' || *p == '\t'))
        p++;
      if (p + 2 < end && *p == '[' && end[-1] == ']')
        {
          k.module = p + 1 - s->kallsyms;
          k.module_len = end - 1 - (p + 1);
        }
      g_array_append_val (syms, k);
    }
  if (syms->len == 0 || text != s->kernel_text)
    {
      g_ptr_array_add (s->warnings,
                       g_strdup (syms->len == 0
                                 ? "kernel frames are not named: /proc/kallsyms shows no "
                                   "addresses (run as root, or lower "
                                   "/proc/sys/kernel/kptr_restrict)"
                                 : "kernel frames are not named: the recording comes from "
                                   "another kernel, or another boot of this one"));
      g_array_unref (syms);
      return;
    }
  g_array_sort (syms, compare_kernel);
  /* one symbol per address, the last, as perf keeps */
  for (guint i = 0; i < syms->len; i++)
    {
      KernelSymbol *k = &g_array_index (syms, KernelSymbol, i);

      if (n > 0 && g_array_index (syms, KernelSymbol, n - 1).addr == k->addr)
        {
          g_array_index (syms, KernelSymbol, n - 1) = *k;
          continue;
        }
      g_array_index (syms, KernelSymbol, n++) = *k;
    }
  g_array_set_size (syms, n);
  s->kernel = syms;
}

static const char *
lookup_kernel (gpointer     session,
               guint64      ip,
               const char **module)
{
  Session *s = session;
  const KernelSymbol *k;
  gsize lo;

  if (!s->kernel_read)
    read_kallsyms (s);
  if (s->kernel == NULL)
    return NULL;
  k = (const KernelSymbol *) (gpointer) s->kernel->data;
  lo = flame_partition_point (k, s->kernel->len, sizeof (KernelSymbol),
                              flame_starts_at_or_before, &ip);
  if (lo == 0)
    return NULL;
  k += lo - 1;
  g_string_assign (s->name, "");
  g_string_append_len (s->name, s->kallsyms + k->name, k->name_len);
  if (k->module != 0)
    {
      g_string_assign (s->module, "");
      g_string_append_len (s->module, s->kallsyms + k->module, k->module_len);
      *module = s->module->str;
    }
  else
    *module = NULL;
  return s->name->str;
}

static GPtrArray *
warnings (gpointer session)
{
  Session *s = session;
  GPtrArray *w = flame_sym_cache_get_warnings (s->cache);

  /* ours after the symbolizer's, each once */
  for (guint i = 0; i < s->warnings->len; i++)
    g_ptr_array_add (w, g_strdup (g_ptr_array_index (s->warnings, i)));
  g_ptr_array_set_size (s->warnings, 0);
  return w;
}

static const FlameResolver perf_resolver = {
  session_new,
  session_free,
  space_new,
  space_free,
  add_module,
  lookup,
  lookup_kernel,
  warnings,
};

void
flame_perf_resolver_register (void)
{
  flame_resolver_set_default (&perf_resolver);
}
