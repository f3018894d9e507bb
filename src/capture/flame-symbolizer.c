/* flame-symbolizer.c: names for recorded instruction pointers.
 *
 * The modules come from the recording (load bias and path as the sampler
 * saw them), never from a live /proc, so a process that has exited is
 * still named. libdwfl reads ELF symbol tables and DWARF (also through
 * .gnu_debuglink and /usr/lib/debug/.build-id, the host's under a root
 * first, and from a debuginfod server when DEBUGINFOD_URLS names one);
 * inlined functions come from the DWARF scopes of the address. A function
 * without any symbol (a local function of a library shipped without its
 * symbol table, as libc.so.6's start_thread on Debian 13 and later) is
 * named by its module and the start of its unwind-table (FDE) entry,
 * "libc.so.6+0x92628", so its samples add up under one name, and a
 * warning says once per file where its debug symbols would be looked
 * for; nearest-symbol guesses are never made (they name the wrong
 * function on stripped libraries, docs/capture.md §6.4).
 *
 * A FlameSymCache is shared by the symbolizers of one recording (one per
 * process and set of modules): each module file is opened, and its
 * symbols, DWARF and CFI read, once; a process's address is translated
 * to the file's (less the load bias) and named once per file.
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
#include <fcntl.h>
#if HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flame-sampler-protocol.h"
#include "flame-names.h"
#include "flame-perf-symtab.h"
#include "flame-search.h"
#include "flame-symbolizer.h"

/* One module file, read once for all the processes of a recording: a
 * Dwfl of its own with the file reported alone, at base 0 (a shared
 * object or PIE is the same in every process but for its load bias, so
 * its symbols, DWARF and CFI are loaded once and every lookup is made
 * relative to the bias). An ET_EXEC (or ET_CORE) file ignores the base
 * (libdwfl places it at its link-time addresses); an ET_REL file is laid
 * out from the base section by section, so it gets one SymFile per base
 * instead. */
typedef struct
{
  char        *path;      /* as recorded: the module's name */
  char        *base;      /* its file name */
  gboolean     own;
  Dwfl        *dwfl;      /* NULL when it cannot be read */
  Dwfl_Module *mod;
  GElf_Half    e_type;
  Dwarf_Addr   start;     /* the module's range in its Dwfl */
  Dwarf_Addr   end;
  char        *error;     /* the warning when it cannot be read, or NULL */
  gboolean     unnamed;   /* some address had no symbol: warned once */
  char        *debuginfo_path;  /* with a root: its /usr/lib/debug first */
  Dwfl_Callbacks callbacks;
  GHashTable  *lookups;   /* address in its Dwfl (guint64 *) → entry index + 1 */
  GHashTable  *checked;   /* recorded build-ids compared with it (GBytes) */
  FlamePerfSymtab *perf;  /* symtab-only: perf's names, built at the first lookup */
  Elf         *debug_elf; /* what perf reads of its debug file */
  int          debug_fd;
} SymFile;

typedef struct
{
  guint first;   /* index into frames */
  guint count;
} Entry;

struct _FlameSymCache
{
  gint          ref_count;
  char         *own_module;
  GHashTable   *files;    /* root, path (and base for ET_REL) as GBytes → SymFile */
  GStringChunk *strings;
  GArray       *frames;   /* FlameSymFrame */
  GArray       *entries;  /* Entry */
  guint         unknown;  /* entry index + 1 of "[unknown]", or 0 */
  gboolean      symtab_only;
  GHashTable   *warned;
  GPtrArray    *warnings;
};

/* a module as one process has it */
typedef struct
{
  guint64  lo, hi;    /* where libdwfl would place it in the process */
  guint64  shift;     /* process address - shift = address in the file's Dwfl */
  SymFile *file;
  GBytes  *build_id;  /* recorded, or NULL */
} Mapping;
G_STATIC_ASSERT (G_STRUCT_OFFSET (Mapping, lo) == 0);

struct _FlameSymbolizer
{
  FlameSymCache *cache;
  char          *root;      /* where the recorded paths are found, or NULL */
  gboolean       reported;
  GArray        *mappings;  /* Mapping, sorted by lo once reported */
  GHashTable    *lookups;   /* (ip << 1 | leaf) (gint64 *) → entry index + 1 */
};

/* libdwfl's default (the file's directory, its .debug, /usr/lib/debug)
 * when @root is NULL; else the host's /usr/lib/debug under @root goes
 * before ours: the recorded files are the host's, so are their debug
 * files (build-id paths are only looked for in absolute directories) */
static void
sym_file_set_callbacks (SymFile    *f,
                        const char *root)
{
  if (root != NULL)
    f->debuginfo_path = g_strdup_printf (":.debug:%s/usr/lib/debug:/usr/lib/debug", root);
  f->callbacks.find_elf = dwfl_build_id_find_elf;
  /* after the local paths, a debuginfod server when DEBUGINFOD_URLS is set
   * (libdw loads its client then) */
  f->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  f->callbacks.section_address = dwfl_offline_section_address;
  f->callbacks.debuginfo_path = &f->debuginfo_path;
}

static void
sym_file_free (SymFile *f)
{
  if (f->dwfl != NULL)
    dwfl_end (f->dwfl);
  flame_perf_symtab_free (f->perf);
  if (f->debug_elf != NULL)
    elf_end (f->debug_elf);
  if (f->debug_fd >= 0)
    close (f->debug_fd);
  g_free (f->path);
  g_free (f->base);
  g_free (f->error);
  g_free (f->debuginfo_path);
  g_hash_table_unref (f->lookups);
  g_hash_table_unref (f->checked);
  g_free (f);
}

/**
 * flame_sym_cache_new:
 * @own_module: the start of the file name of the modules whose frames
 *   are flagged own (the sampler, in either build)
 *
 * What the symbolizers of one recording share: each module file opened
 * once, the names of its addresses, and the warnings (once per file).
 */
FlameSymCache *
flame_sym_cache_new (const char *own_module)
{
  FlameSymCache *cache = g_new0 (FlameSymCache, 1);

  cache->ref_count = 1;
  cache->own_module = g_strdup (own_module);
  cache->files = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                        (GDestroyNotify) g_bytes_unref,
                                        (GDestroyNotify) sym_file_free);
  cache->strings = g_string_chunk_new (4096);
  cache->frames = g_array_new (FALSE, FALSE, sizeof (FlameSymFrame));
  cache->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  cache->warned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  cache->warnings = g_ptr_array_new_with_free_func (g_free);
  return cache;
}

FlameSymCache *
flame_sym_cache_ref (FlameSymCache *cache)
{
  cache->ref_count++;
  return cache;
}

void
flame_sym_cache_unref (FlameSymCache *cache)
{
  if (cache == NULL || --cache->ref_count > 0)
    return;
  g_free (cache->own_module);
  g_hash_table_unref (cache->files);
  g_string_chunk_free (cache->strings);
  g_array_unref (cache->frames);
  g_array_unref (cache->entries);
  g_hash_table_unref (cache->warned);
  g_ptr_array_unref (cache->warnings);
  g_free (cache);
}

/* Names from symbol tables only, one per address, without the DWARF
 * names of inlined functions: as `perf script` names them. Call before
 * the first lookup. */
void
flame_sym_cache_set_symtab_only (FlameSymCache *cache,
                                 gboolean       symtab_only)
{
  cache->symtab_only = symtab_only;
}

/* Returns: (transfer none): the warnings of all its symbolizers, in the
 * order they were found */
GPtrArray *
flame_sym_cache_get_warnings (FlameSymCache *cache)
{
  return cache->warnings;
}

/* A symbolizer for the modules of one process (one set of them: a new
 * one when a module replaces another) that shares @cache */
FlameSymbolizer *
flame_symbolizer_new_shared (FlameSymCache *cache)
{
  FlameSymbolizer *self = g_new0 (FlameSymbolizer, 1);

  self->cache = flame_sym_cache_ref (cache);
  self->mappings = g_array_new (FALSE, FALSE, sizeof (Mapping));
  self->lookups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return self;
}

/* @own_module: as for flame_sym_cache_new(); the symbolizer has a cache
 * of its own */
FlameSymbolizer *
flame_symbolizer_new (const char *own_module)
{
  g_autoptr(FlameSymCache) cache = flame_sym_cache_new (own_module);

  return flame_symbolizer_new_shared (cache);
}

void
flame_symbolizer_free (FlameSymbolizer *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->mappings->len; i++)
    g_clear_pointer (&g_array_index (self->mappings, Mapping, i).build_id, g_bytes_unref);
  g_array_unref (self->mappings);
  g_hash_table_unref (self->lookups);
  g_free (self->root);
  flame_sym_cache_unref (self->cache);
  g_free (self);
}

/* Returns: the warnings of its cache: with a shared one, those of every
 * symbolizer that shares it */
GPtrArray *
flame_symbolizer_get_warnings (FlameSymbolizer *self)
{
  return self->cache->warnings;
}

static void
warn_once (FlameSymCache *cache,
           const char    *key,
           const char    *message)
{
  if (g_hash_table_contains (cache->warned, key))
    return;
  g_hash_table_add (cache->warned, g_strdup (key));
  g_ptr_array_add (cache->warnings, g_strdup (message));
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

/* The vDSO has no file. Every process on one kernel gets the same
 * image, so ours stands in for the recorded one (the build-id check
 * says so when the recording comes from another kernel): a copy in a
 * memfd, whose descriptor libdwfl then owns. -1 when there is none. */
static int
vdso_fd (void)
{
  const guint8 *image = (const guint8 *) getauxval (AT_SYSINFO_EHDR);
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *) image;
  gsize size;
  int fd;

  if (image == NULL || memcmp (image, ELFMAG, SELFMAG) != 0 || image[EI_CLASS] != ELFCLASS64)
    return -1;
  size = eh->e_shoff + (gsize) eh->e_shnum * eh->e_shentsize;
  for (guint i = 0; i < eh->e_phnum; i++)
    {
      const Elf64_Phdr *ph =
        (const Elf64_Phdr *) (image + eh->e_phoff + (gsize) i * eh->e_phentsize);

      if (ph->p_type == PT_LOAD)
        size = MAX (size, ph->p_offset + ph->p_filesz);
    }
  fd = memfd_create ("vdso", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  if (write (fd, image, size) != (gssize) size)
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* The file of @path (under @root when it is there) as reported at @base,
 * opened the first time it is asked for */
static SymFile *
get_file (FlameSymCache *cache,
          const char    *root,
          const char    *path,
          gboolean       with_base,
          guint64        base)
{
  g_autoptr(GByteArray) key_bytes = g_byte_array_new ();
  g_autoptr(GBytes) key = NULL;
  g_autofree char *rooted = NULL;
  GStatBuf st;
  SymFile *f;
  int fd = -1;    /* the vDSO's copy */

  /* NUL cannot be in either string: the key is unambiguous */
  if (root != NULL)
    g_byte_array_append (key_bytes, (const guint8 *) root, strlen (root));
  g_byte_array_append (key_bytes, (const guint8 *) "", 1);
  g_byte_array_append (key_bytes, (const guint8 *) path, strlen (path));
  if (with_base)
    {
      g_byte_array_append (key_bytes, (const guint8 *) "", 1);
      g_byte_array_append (key_bytes, (const guint8 *) &base, sizeof base);
    }
  key = g_byte_array_free_to_bytes (g_steal_pointer (&key_bytes));
  f = g_hash_table_lookup (cache->files, key);
  if (f != NULL)
    return f;

  f = g_new0 (SymFile, 1);
  f->path = g_strdup (path);
  f->base = g_path_get_basename (path);
  f->own = cache->own_module != NULL && g_str_has_prefix (f->base, cache->own_module);
  f->lookups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  f->debug_fd = -1;
  f->checked = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                      (GDestroyNotify) g_bytes_unref, NULL);
  g_hash_table_insert (cache->files, g_steal_pointer (&key), f);

  if (root != NULL)
    {
      rooted = g_build_filename (root, path, NULL);
      if (!g_file_test (rooted, G_FILE_TEST_IS_REGULAR))
        g_clear_pointer (&rooted, g_free);
    }
  if (strcmp (path, FLAME_SAMPLER_VDSO_PATH) == 0)
    {
      fd = vdso_fd ();
      if (fd < 0)
        {
          f->error = g_strdup ("cannot read this kernel's vDSO: its functions stay unnamed");
          return f;
        }
    }
  /* A FIFO or a device (a damaged or hostile spool can name one) would
   * block the open or the reads: only regular files are opened. What
   * does not exist is left to libdwfl, which says so. */
  else if (g_stat (rooted != NULL ? rooted : path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      f->error = g_strdup_printf ("cannot read %s: not a regular file; its functions stay unnamed",
                                  path);
      return f;
    }
  sym_file_set_callbacks (f, rooted != NULL ? root : NULL);
  f->dwfl = dwfl_begin (&f->callbacks);
  if (f->dwfl == NULL)
    {
      if (fd >= 0)
        close (fd);
      return f;
    }
  dwfl_report_begin (f->dwfl);
  /* libdwfl owns @fd once this succeeds, not when it fails */
  f->mod = dwfl_report_elf (f->dwfl, path, rooted != NULL ? rooted : path, fd,
                            with_base ? base : 0, true);
  if (f->mod == NULL)
    {
      f->error = g_strdup_printf ("cannot read %s: %s; its functions stay unnamed",
                                  path, dwfl_errmsg (-1));
      if (fd >= 0)
        close (fd);
      g_clear_pointer (&f->dwfl, dwfl_end);
      return f;
    }
  dwfl_report_end (f->dwfl, NULL, NULL);
  dwfl_module_info (f->mod, NULL, &f->start, &f->end, NULL, NULL, NULL, NULL);
  {
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf (f->mod, &bias);
    GElf_Ehdr ehdr;

    f->e_type = elf != NULL && gelf_getehdr (elf, &ehdr) != NULL ? ehdr.e_type : ET_DYN;
  }
  return f;
}

void
flame_symbolizer_add_module (FlameSymbolizer *self,
                             const char      *path,
                             guint64          base,
                             const guint8    *build_id,
                             gsize            build_id_len)
{
  SymFile *f;
  Mapping m = { 0 };

  if (self->reported)
    return;
  f = get_file (self->cache, self->root, path, FALSE, 0);
  if (f->mod != NULL && f->e_type == ET_REL)
    f = get_file (self->cache, self->root, path, TRUE, base);
  if (f->error != NULL)
    warn_once (self->cache, path, f->error);
  if (f->mod == NULL)
    return;
  /* as __libdwfl_elf_address_range places the file at @base */
  if (f->e_type == ET_EXEC || f->e_type == ET_CORE || f->e_type == ET_REL)
    m.shift = 0;
  else
    m.shift = base;
  m.lo = f->start + m.shift;
  m.hi = f->end + m.shift;
  m.file = f;
  if (build_id_len > 0)
    m.build_id = g_bytes_new (build_id, build_id_len);
  g_array_append_val (self->mappings, m);
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
 * a function from matching itself in a comparison. The C++ demangler
 * leaves the "$…$" escapes too. The loaders' rule: flame-names.c. Takes
 * @name. */
static char *
rust_legacy_name (char *name)
{
  GString *out = g_string_new (NULL);

  if (flame_names_rust_legacy (name, strlen (name), out))
    {
      g_free (name);
      return g_string_free (out, FALSE);
    }
  g_string_free (out, TRUE);
  return name;
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
  return flame_demangle_full (name, TRUE);
}

/**
 * flame_demangle_full:
 * @signature: with the parameters and the return type; without them as
 *   perf names functions ("std::__insertion_sort<…>", not "void
 *   std::__insertion_sort<…>(…)"); libstdc++'s demangler (the build
 *   without libiberty) always gives them
 */
char *
flame_demangle_full (const char *name,
                     gboolean    signature)
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
      out = cplus_demangle (name, (signature ? DMGL_PARAMS | DMGL_ANSI : 0) | DMGL_AUTO);
      if (out != NULL)
        {
          char *copy = g_strdup (out);

          free (out);
          /* a hash that libiberty does not take for one (too few
           * distinct digits) is still a build's hash */
          if (strncmp (name, "_ZN", 3) == 0)
            copy = rust_legacy_name (copy);
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
        copy = rust_legacy_name (copy);
      return copy;
    }
}

/* ---- lookup ---- */

static const char *
intern (FlameSymCache *cache,
        const char    *s)
{
  return s != NULL ? g_string_chunk_insert_const (cache->strings, s) : NULL;
}

static void
push (FlameSymCache *cache,
      const char    *name,
      const char    *file,
      guint          line,
      gboolean       inlined,
      gboolean       own)
{
  FlameSymFrame f;

  f.name = intern (cache, name);
  f.file = intern (cache, file);
  f.line = line;
  f.inlined = inlined;
  f.own = own;
  g_array_append_val (cache->frames, f);
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
/* The concrete function at @pc among the CU's top-level DIEs */
static gboolean
find_subprogram (Dwarf_Die  *cudie,
                 Dwarf_Addr  pc,
                 Dwarf_Die  *result)
{
  if (dwarf_child (cudie, result) != 0)
    return FALSE;
  do
    if (dwarf_tag (result) == DW_TAG_subprogram && dwarf_haspc (result, pc) > 0)
      return TRUE;
  while (dwarf_siblingof (result, result) == 0);
  return FALSE;
}

static gboolean
lookup_dwarf (FlameSymCache *cache,
              Dwfl_Module   *mod,
              Dwarf_Addr     addr,
              gboolean       own)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cudie = dwfl_module_addrdie (mod, addr, &bias);
  Dwarf_Die *scopes = NULL;
  int n;
  guint pushed = 0;
  gboolean outer = FALSE;
  Dwarf_Die die;

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
      push (cache, demangled, file, line > 0 ? (guint) line : 0,
            tag == DW_TAG_inlined_subroutine, own);
      pushed++;
      if (tag == DW_TAG_subprogram)
        {
          outer = TRUE;
          break;
        }
    }
  /* elfutils 0.196 with GCC 16's DWARF (Debian unstable) ends the scopes
   * of an inlined instance at the CU, without the function it was
   * inlined into: busy's samples were named cpu_now */
  if (pushed > 0 && !outer && find_subprogram (cudie, addr - bias, &die))
    {
      const char *name = die_name (&die);
      g_autofree char *demangled = NULL;
      int line = 0;

      if (name == NULL)
        name = dwfl_module_addrname (mod, addr);
      demangled = flame_demangle (name != NULL ? name : "[unknown]");
      if (dwarf_decl_line (&die, &line) != 0)
        line = 0;
      push (cache, demangled, dwarf_decl_file (&die), line > 0 ? (guint) line : 0, FALSE, own);
    }
  free (scopes);
  return pushed > 0;
}

/* once per file and recorded build-id */
static void
check_build_id (FlameSymCache *cache,
                Mapping       *m)
{
  const unsigned char *bits = NULL;
  GElf_Addr vaddr;
  int len;

  if (m->build_id == NULL || g_hash_table_contains (m->file->checked, m->build_id))
    return;
  g_hash_table_add (m->file->checked, g_bytes_ref (m->build_id));
  len = dwfl_module_build_id (m->file->mod, &bits, &vaddr);
  if (len > 0 && (gsize) len == g_bytes_get_size (m->build_id) &&
      memcmp (bits, g_bytes_get_data (m->build_id, NULL), len) == 0)
    return;
  if (len > 0)
    {
      g_autofree char *message =
        g_strdup_printf ("%s changed after it was recorded (build-id differs): "
                         "its function names may be wrong", m->file->path);

      warn_once (cache, m->file->path, message);
    }
}

/* Has the file a full symbol table (.symtab), its own or from a debug
 * file libdwfl found? Then an address without a name is code that no
 * symbol covers (a PLT stub), and debug symbols would not help. */
static gboolean
has_symtab (SymFile *f)
{
  const char *debugfile = NULL;
  Dwarf_Addr bias;
  Elf *elf = dwfl_module_getelf (f->mod, &bias);
  Elf_Scn *scn = NULL;

  dwfl_module_info (f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
  if (debugfile != NULL)
    return TRUE;
  while (elf != NULL && (scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr shdr;

      if (gelf_getshdr (scn, &shdr) != NULL && shdr.sh_type == SHT_SYMTAB)
        return TRUE;
    }
  return FALSE;
}

/* Once per file without a full symbol table: which of its functions had
 * no name, and what would name them. Debian 13 and later ship libc.so.6
 * without its local symbols (start_thread, …): their debug files are
 * libc6-dbg or the -dbgsym packages, in /usr/lib/debug/.build-id. */
static void
warn_unnamed (FlameSymCache *cache,
              SymFile       *f)
{
  const unsigned char *bits = NULL;
  GElf_Addr vaddr;
  int len;
  g_autoptr(GString) message = g_string_new (NULL);
  const char *urls = g_getenv ("DEBUGINFOD_URLS");

  if (f->unnamed)
    return;
  f->unnamed = TRUE;
  if (has_symtab (f))
    return;
  if (cache->symtab_only)
    g_string_printf (message, "%s has no symbols for some of its functions, named [%s] "
                     "as perf does: its debug symbols would name them (", f->path, f->base);
  else
    g_string_printf (message, "%s has no symbols for some of its functions, named %s+0xSTART "
                     "instead: its debug symbols would name them (", f->path, f->base);
  len = dwfl_module_build_id (f->mod, &bits, &vaddr);
  if (len > 1)
    {
      g_string_append (message, "looked for in /usr/lib/debug/.build-id/");
      for (int i = 0; i < len; i++)
        g_string_append_printf (message, i == 1 ? "/%02x" : "%02x", bits[i]);
      g_string_append (message, ".debug");
    }
  else
    g_string_append (message, "it has no build-id to find them by");
  if (urls != NULL && *urls != '\0')
    g_string_append (message, "; not found by debuginfod either");
  else
    g_string_append (message, "; or set DEBUGINFOD_URLS to a debuginfod server");
  g_string_append (message, ")");
  warn_once (cache, message->str, message->str);
}

/* Symtab-only: the table perf would make, from the file and the debug
 * file libdwfl finds for it (flame-perf-symtab.c) */
static void
build_perf_symtab (FlameSymCache *cache,
                   SymFile       *f)
{
  Dwarf_Addr bias = 0;
  Elf *elf = dwfl_module_getelf (f->mod, &bias);
  const char *debugfile = NULL;

  /* libdwfl looks for the debug file when the module has no .symtab */
  (void) dwfl_module_getsymtab (f->mod);
  dwfl_module_info (f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
  if (debugfile != NULL && (f->debug_fd = open (debugfile, O_RDONLY | O_CLOEXEC)) >= 0)
    f->debug_elf = elf_begin (f->debug_fd, ELF_C_READ_MMAP, NULL);
  f->perf = flame_perf_symtab_new (elf, f->debug_elf, bias, cache->strings);
}

/* @addr: in the file's Dwfl */
static void
lookup_uncached (FlameSymCache *cache,
                 SymFile       *f,
                 Dwarf_Addr     addr)
{
  Dwfl_Module *mod = f->mod;
  GElf_Sym sym;
  GElf_Off offset;
  const char *name;
  Dwarf_Addr cfi_bias;
  Dwarf_CFI *cfi;
  Dwarf_Frame *frame = NULL;

  if (cache->symtab_only && f->e_type != ET_REL)
    {
      const char *perf_name;

      if (f->perf == NULL)
        build_perf_symtab (cache, f);
      perf_name = flame_perf_symtab_lookup (f->perf, addr);
      if (perf_name == NULL && !f->own)
        warn_unnamed (cache, f);
      push (cache, perf_name != NULL ? perf_name : "[unknown]", f->base, 0, FALSE, f->own);
      return;
    }
  if (!cache->symtab_only && lookup_dwarf (cache, mod, addr, f->own))
    return;

  /* a symbol that really covers the address (sizes checked) */
  name = dwfl_module_addrinfo (mod, addr, &offset, &sym, NULL, NULL, NULL);
  if (name != NULL)
    {
      g_autofree char *demangled = flame_demangle (name);

      push (cache, demangled, f->base, 0, FALSE, f->own);
      return;
    }

  /* no symbol: the start of the unwind-table entry names the function
   * (relative to the module's start: the same in every process) */
  cfi = dwfl_module_eh_cfi (mod, &cfi_bias);
  if (cfi != NULL && dwarf_cfi_addrframe (cfi, addr - cfi_bias, &frame) == 0)
    {
      Dwarf_Addr fstart, fend;
      bool signalp;

      if (dwarf_frame_info (frame, &fstart, &fend, &signalp) >= 0)
        {
          g_autofree char *label = g_strdup_printf ("%s+0x%" G_GINT64_MODIFIER "x", f->base,
                                                    (guint64) (fstart + cfi_bias - f->start));

          free (frame);
          push (cache, label, f->base, 0, FALSE, f->own);
          if (!f->own)
            warn_unnamed (cache, f);
          return;
        }
      free (frame);
    }
  if (!f->own)
    warn_unnamed (cache, f);
  {
    g_autofree char *label = g_strdup_printf ("[%s]", f->base);

    push (cache, label, f->base, 0, FALSE, f->own);
  }
}

/* Returns: entry index + 1 of @addr in @f, looked up once per cache */
static guint
lookup_file (FlameSymCache *cache,
             SymFile       *f,
             guint64        addr)
{
  gpointer value = g_hash_table_lookup (f->lookups, &addr);
  Entry entry;

  if (value != NULL)
    return GPOINTER_TO_UINT (value);
  entry.first = cache->frames->len;
  lookup_uncached (cache, f, addr);
  entry.count = cache->frames->len - entry.first;
  g_array_append_val (cache->entries, entry);
  g_hash_table_insert (f->lookups, g_memdup2 (&addr, sizeof addr),
                       GUINT_TO_POINTER (cache->entries->len));
  return cache->entries->len;
}

static gint
compare_mappings (gconstpointer a,
                  gconstpointer b)
{
  const Mapping *x = a, *y = b;

  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The module at @addr: the one starting last at or before it that
 * covers it, like dwfl_addrmodule */
static Mapping *
find_mapping (FlameSymbolizer *self,
              guint64          addr)
{
  Mapping *ms = (Mapping *) (gpointer) self->mappings->data;
  /* the first mapping starting after @addr */
  gsize lo = flame_partition_point (ms, self->mappings->len, sizeof (Mapping),
                                    flame_starts_at_or_before, &addr);

  while (lo-- > 0)
    if (addr < ms[lo].hi)
      return &ms[lo];
  return NULL;
}

/**
 * flame_symbolizer_lookup:
 * @leaf: the interrupted instruction (named at @ip) rather than a return
 *   address (named at @ip - 1, the call instruction)
 * @frames: (out): innermost first; valid until the next lookup with the
 *   same cache
 *
 * Returns: how many frames @ip stands for (inlined functions add frames).
 */
guint
flame_symbolizer_lookup (FlameSymbolizer      *self,
                         guint64               ip,
                         gboolean              leaf,
                         const FlameSymFrame **frames)
{
  FlameSymCache *cache = self->cache;
  gint64 key = (gint64) ((ip << 1) | (leaf ? 1 : 0));
  gpointer value;
  Entry *e;

  if (!self->reported)
    {
      g_array_sort (self->mappings, compare_mappings);
      self->reported = TRUE;
    }
  value = g_hash_table_lookup (self->lookups, &key);
  if (value == NULL)
    {
      guint64 addr = leaf || ip == 0 ? ip : ip - 1;
      Mapping *m = find_mapping (self, addr);
      guint index;

      if (m != NULL)
        {
          check_build_id (cache, m);
          index = lookup_file (cache, m->file, addr - m->shift);
        }
      else
        {
          if (cache->unknown == 0)
            {
              Entry entry = { cache->frames->len, 1 };

              push (cache, "[unknown]", NULL, 0, FALSE, FALSE);
              g_array_append_val (cache->entries, entry);
              cache->unknown = cache->entries->len;
            }
          index = cache->unknown;
        }
      value = GUINT_TO_POINTER (index);
      g_hash_table_insert (self->lookups, g_memdup2 (&key, sizeof key), value);
    }
  e = &g_array_index (cache->entries, Entry, GPOINTER_TO_UINT (value) - 1);
  *frames = &g_array_index (cache->frames, FlameSymFrame, e->first);
  return e->count;
}
