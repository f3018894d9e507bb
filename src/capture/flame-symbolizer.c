/* flame-symbolizer.c: names for recorded instruction pointers.
 *
 * The modules come from the recording (load bias and path as the sampler
 * saw them), never from a live /proc, so a process that has exited is
 * still named. libdwfl reads ELF symbol tables and DWARF (also through
 * .gnu_debuglink and /usr/lib/debug/.build-id); inlined functions come
 * from the DWARF scopes of the address. A function without any symbol is
 * named by its module and the start of its unwind-table (FDE) entry, so
 * its samples add up under one name; nearest-symbol guesses are never
 * made (they name the wrong function on stripped libraries,
 * docs/capture.md §6.4).
 *
 * Demangling: libiberty's cplus_demangle when the build has it (C++,
 * Rust legacy and Rust v0), else libstdc++'s __cxa_demangle, opened with
 * dlopen so the C programs link no C++ runtime (C++ and legacy Rust
 * only: v0 _R… names stay as they are; the GNOME runtime has no
 * libiberty). Either way Rust names lose what differs between builds of
 * the same code: the legacy "::h<16 hex>" hash and v0 crate
 * disambiguators, so a function matches itself across a rebuild.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <dlfcn.h>
#if HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "flame-symbolizer.h"

typedef struct
{
  guint first;   /* index into frames */
  guint count;
} Entry;

struct _FlameSymbolizer
{
  Dwfl         *dwfl;
  gboolean      reported;
  char         *own_module;
  char         *root;        /* where the recorded paths are found, or NULL */
  GStringChunk *strings;
  GArray       *frames;   /* FlameSymFrame */
  GArray       *entries;  /* Entry */
  GHashTable   *cache;    /* (ip << 1 | leaf) → entry index + 1 */
  GHashTable   *warned;
  GPtrArray    *warnings;
  GHashTable   *build_ids; /* Dwfl_Module* → recorded build-id (GBytes) */
};

static char *debuginfo_path = NULL;

static const Dwfl_Callbacks callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
  .debuginfo_path = &debuginfo_path,
};

/* @own_module: the start of the file name of the modules whose frames
 * are flagged own (the sampler, in either build) */
FlameSymbolizer *
flame_symbolizer_new (const char *own_module)
{
  FlameSymbolizer *self = g_new0 (FlameSymbolizer, 1);

  self->dwfl = dwfl_begin (&callbacks);
  if (self->dwfl != NULL)
    dwfl_report_begin (self->dwfl);
  self->own_module = g_strdup (own_module);
  self->strings = g_string_chunk_new (4096);
  self->frames = g_array_new (FALSE, FALSE, sizeof (FlameSymFrame));
  self->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->cache = g_hash_table_new (g_int64_hash, g_int64_equal);
  self->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  self->build_ids = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_bytes_unref);
  return self;
}

void
flame_symbolizer_free (FlameSymbolizer *self)
{
  GHashTableIter iter;
  gpointer key;

  if (self == NULL)
    return;
  if (self->dwfl != NULL)
    dwfl_end (self->dwfl);
  g_free (self->own_module);
  g_free (self->root);
  g_string_chunk_free (self->strings);
  g_array_unref (self->frames);
  g_array_unref (self->entries);
  g_hash_table_iter_init (&iter, self->cache);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_free (key);
  g_hash_table_unref (self->cache);
  g_hash_table_unref (self->warned);
  g_ptr_array_unref (self->warnings);
  g_hash_table_unref (self->build_ids);
  g_free (self);
}

GPtrArray *
flame_symbolizer_get_warnings (FlameSymbolizer *self)
{
  return self->warnings;
}

static void
warn_once (FlameSymbolizer *self,
           const char      *key,
           char            *message)
{
  if (g_hash_table_contains (self->warned, key))
    {
      g_free (message);
      return;
    }
  g_hash_table_add (self->warned, g_strdup (key));
  g_ptr_array_add (self->warnings, message);
}

/**
 * flame_symbolizer_set_root:
 * @root: (nullable): a directory the recorded paths are relative to
 *
 * For programs recorded outside the Flatpak sandbox: the host's files
 * are read under @root (`/run/host` with `--filesystem=host-os:ro`) when
 * they are there, and keep their recorded names. Call before adding
 * modules.
 */
void
flame_symbolizer_set_root (FlameSymbolizer *self,
                           const char      *root)
{
  g_free (self->root);
  self->root = g_strdup (root);
}

void
flame_symbolizer_add_module (FlameSymbolizer *self,
                             const char      *path,
                             guint64          base,
                             const guint8    *build_id,
                             gsize            build_id_len)
{
  g_autofree char *rooted = NULL;
  GStatBuf st;
  Dwfl_Module *mod;

  if (self->dwfl == NULL || self->reported)
    return;
  if (self->root != NULL)
    {
      rooted = g_build_filename (self->root, path, NULL);
      if (!g_file_test (rooted, G_FILE_TEST_IS_REGULAR))
        g_clear_pointer (&rooted, g_free);
    }
  /* A FIFO or a device (a damaged or hostile spool can name one) would
   * block the open or the reads: only regular files are opened. What
   * does not exist is left to libdwfl, which says so. */
  if (g_stat (rooted != NULL ? rooted : path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      warn_once (self, path,
                 g_strdup_printf ("cannot read %s: not a regular file; its functions stay unnamed",
                                  path));
      return;
    }
  mod = dwfl_report_elf (self->dwfl, path, rooted != NULL ? rooted : path, -1, base, true);
  if (mod == NULL)
    {
      warn_once (self, path,
                 g_strdup_printf ("cannot read %s: %s; its functions stay unnamed",
                                  path, dwfl_errmsg (-1)));
      return;
    }
  if (build_id_len > 0)
    g_hash_table_insert (self->build_ids, mod, g_bytes_new (build_id, build_id_len));
}

/* ---- demangling ---- */

typedef char *(*CxaDemangle) (const char *, char *, size_t *, int *);

static CxaDemangle
get_cxa_demangle (void)
{
  static gsize once = 0;
  static CxaDemangle fn = NULL;

  if (g_once_init_enter (&once))
    {
      void *lib = dlopen ("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

      if (lib != NULL)
        fn = (CxaDemangle) dlsym (lib, "__cxa_demangle");
      g_once_init_leave (&once, 1);
    }
  return fn;
}

/* Rust's legacy mangling ends every path in "::h" and 16 hex digits: a
 * hash of the crate build that differs between builds, so it would keep
 * a function from matching itself in a comparison. */
static void
strip_rust_hash (char *name)
{
  char *h = g_strrstr (name, "::h");

  if (h != NULL && strlen (h) == 3 + 16)
    {
      for (int i = 3; i < 19; i++)
        if (!g_ascii_isxdigit (h[i]))
          return;
      *h = '\0';
    }
}

/**
 * flame_demangle:
 * @name: a symbol name as the ELF file has it
 *
 * Returns: the demangled name ("std::vector<int, …>::push_back(int
 * const&)", "core::fmt::write", "mycrate::main::{closure#0}"), or a copy
 * of @name when it is not mangled or cannot be demangled.
 */
char *
flame_demangle (const char *name)
{
  CxaDemangle fn;
  char *out;
  int status = 0;

  if (name == NULL)
    return NULL;
#if HAVE_LIBIBERTY
  if (strncmp (name, "_Z", 2) == 0 || strncmp (name, "_R", 2) == 0)
    {
      /* DMGL_AUTO tries Rust first (legacy Rust names are valid C++
       * names too): legacy hashes and v0 disambiguators are left out
       * unless DMGL_VERBOSE */
      out = cplus_demangle (name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
      if (out != NULL)
        {
          char *copy = g_strdup (out);

          free (out);
          /* a hash that libiberty does not take for one (too few
           * distinct digits) is still a build's hash */
          if (strncmp (name, "_ZN", 3) == 0)
            strip_rust_hash (copy);
          return copy;
        }
      return g_strdup (name);
    }
#endif
  if (strncmp (name, "_Z", 2) != 0 || (fn = get_cxa_demangle ()) == NULL)
    return g_strdup (name);
  out = fn (name, NULL, NULL, &status);
  if (out == NULL || status != 0)
    {
      free (out);
      return g_strdup (name);
    }
  else
    {
      char *copy = g_strdup (out);

      free (out);
      if (strncmp (name, "_ZN", 3) == 0 && g_str_has_suffix (name, "E"))
        strip_rust_hash (copy);
      return copy;
    }
}

/* ---- lookup ---- */

static const char *
intern (FlameSymbolizer *self,
        const char      *s)
{
  return s != NULL ? g_string_chunk_insert_const (self->strings, s) : NULL;
}

static void
push (FlameSymbolizer *self,
      const char      *name,
      const char      *file,
      guint            line,
      gboolean         inlined,
      gboolean         own)
{
  FlameSymFrame f;

  f.name = intern (self, name);
  f.file = intern (self, file);
  f.line = line;
  f.inlined = inlined;
  f.own = own;
  g_array_append_val (self->frames, f);
}

static const char *
die_name (Dwarf_Die *die)
{
  Dwarf_Attribute attr;
  const char *name;

  if ((dwarf_attr_integrate (die, DW_AT_linkage_name, &attr) != NULL ||
       dwarf_attr_integrate (die, DW_AT_MIPS_linkage_name, &attr) != NULL) &&
      (name = dwarf_formstring (&attr)) != NULL)
    return name;
  if (dwarf_attr_integrate (die, DW_AT_name, &attr) != NULL)
    return dwarf_formstring (&attr);
  return NULL;
}

/* Frames from DWARF scopes, innermost first: every inlined function at
 * the address, then the function they were inlined into. A frame is a
 * function (its declaration's file and line), not the sampled line: the
 * same function on the same path stays one node of the flame graph.
 * Returns FALSE when the address has no DWARF. */
static gboolean
lookup_dwarf (FlameSymbolizer *self,
              Dwfl_Module     *mod,
              Dwarf_Addr       addr,
              gboolean         own)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cudie = dwfl_module_addrdie (mod, addr, &bias);
  Dwarf_Die *scopes = NULL;
  int n;
  guint pushed = 0;

  if (cudie == NULL)
    return FALSE;
  n = dwarf_getscopes (cudie, addr - bias, &scopes);
  if (n <= 0)
    {
      free (scopes);
      return FALSE;
    }

  for (int i = 0; i < n; i++)
    {
      int tag = dwarf_tag (&scopes[i]);
      const char *name;
      const char *file;
      int line = 0;
      g_autofree char *demangled = NULL;

      if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
        continue;
      name = die_name (&scopes[i]);
      if (name == NULL)
        {
          /* fall back on the symbol table for the outermost function */
          if (tag == DW_TAG_subprogram)
            name = dwfl_module_addrname (mod, addr);
          if (name == NULL)
            name = "[unknown]";
        }
      demangled = flame_demangle (name);
      file = dwarf_decl_file (&scopes[i]);
      if (dwarf_decl_line (&scopes[i], &line) != 0)
        line = 0;
      push (self, demangled, file, line > 0 ? (guint) line : 0,
            tag == DW_TAG_inlined_subroutine, own);
      pushed++;
      if (tag == DW_TAG_subprogram)
        break;
    }
  free (scopes);
  return pushed > 0;
}

static void
check_build_id (FlameSymbolizer *self,
                Dwfl_Module     *mod,
                const char      *path)
{
  GBytes *recorded = g_hash_table_lookup (self->build_ids, mod);
  const unsigned char *bits = NULL;
  GElf_Addr vaddr;
  int len;

  if (recorded == NULL)
    return;
  len = dwfl_module_build_id (mod, &bits, &vaddr);
  if (len > 0 && (gsize) len == g_bytes_get_size (recorded) &&
      memcmp (bits, g_bytes_get_data (recorded, NULL), len) == 0)
    return;
  if (len > 0)
    warn_once (self, path,
               g_strdup_printf ("%s changed after it was recorded (build-id differs): "
                                "its function names may be wrong", path));
}

static void
lookup_uncached (FlameSymbolizer *self,
                 guint64          ip,
                 gboolean         leaf)
{
  Dwarf_Addr addr = leaf || ip == 0 ? ip : ip - 1;
  Dwfl_Module *mod = self->dwfl != NULL ? dwfl_addrmodule (self->dwfl, addr) : NULL;
  const char *modname;
  g_autofree char *base = NULL;
  Dwarf_Addr start = 0;
  GElf_Sym sym;
  GElf_Off offset;
  const char *name;
  Dwarf_Addr cfi_bias;
  Dwarf_CFI *cfi;
  Dwarf_Frame *frame = NULL;
  gboolean own;

  if (mod == NULL)
    {
      push (self, "[unknown]", NULL, 0, FALSE, FALSE);
      return;
    }
  modname = dwfl_module_info (mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
  base = g_path_get_basename (modname != NULL ? modname : "?");
  own = self->own_module != NULL && g_str_has_prefix (base, self->own_module);
  check_build_id (self, mod, modname);

  if (lookup_dwarf (self, mod, addr, own))
    return;

  /* a symbol that really covers the address (sizes checked) */
  name = dwfl_module_addrinfo (mod, addr, &offset, &sym, NULL, NULL, NULL);
  if (name != NULL)
    {
      g_autofree char *demangled = flame_demangle (name);

      push (self, demangled, base, 0, FALSE, own);
      return;
    }

  /* no symbol: the start of the unwind-table entry names the function */
  cfi = dwfl_module_eh_cfi (mod, &cfi_bias);
  if (cfi != NULL && dwarf_cfi_addrframe (cfi, addr - cfi_bias, &frame) == 0)
    {
      Dwarf_Addr fstart, fend;
      bool signalp;

      if (dwarf_frame_info (frame, &fstart, &fend, &signalp) >= 0)
        {
          g_autofree char *label = g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", base,
                                                    (guint64) (fstart + cfi_bias - start));

          free (frame);
          push (self, label, base, 0, FALSE, own);
          return;
        }
      free (frame);
    }
  {
    g_autofree char *label = g_strdup_printf ("[%s]", base);

    push (self, label, base, 0, FALSE, own);
  }
}

/**
 * flame_symbolizer_lookup:
 * @leaf: the interrupted instruction (named at @ip) rather than a return
 *   address (named at @ip - 1, the call instruction)
 * @frames: (out): innermost first
 *
 * Returns: how many frames @ip stands for (inlined functions add frames).
 */
guint
flame_symbolizer_lookup (FlameSymbolizer      *self,
                         guint64               ip,
                         gboolean              leaf,
                         const FlameSymFrame **frames)
{
  gint64 key = (gint64) ((ip << 1) | (leaf ? 1 : 0));
  gpointer value;
  Entry *e;

  if (!self->reported)
    {
      if (self->dwfl != NULL)
        dwfl_report_end (self->dwfl, NULL, NULL);
      self->reported = TRUE;
    }
  value = g_hash_table_lookup (self->cache, &key);
  if (value == NULL)
    {
      Entry entry;

      entry.first = self->frames->len;
      lookup_uncached (self, ip, leaf);
      entry.count = self->frames->len - entry.first;
      g_array_append_val (self->entries, entry);
      value = GUINT_TO_POINTER (self->entries->len);
      g_hash_table_insert (self->cache, g_memdup2 (&key, sizeof key), value);
    }
  e = &g_array_index (self->entries, Entry, GPOINTER_TO_UINT (value) - 1);
  *frames = &g_array_index (self->frames, FlameSymFrame, e->first);
  return e->count;
}
