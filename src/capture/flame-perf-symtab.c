/* flame-perf-symtab.c: a module's functions as perf names them, so that
 * a perf.data file read natively names its frames as `perf script` does
 * (perf 6.1, tools/perf/util/symbol-elf.c dso__load_sym and
 * dso__synthesize_plt_symbols, symbol.c symbols__fixup_end,
 * symbols__fixup_duplicate and choose_best_symbol):
 *
 * - one table: .symtab (the file's, else its debug file's, which perf
 *   finds by build-id too), else .dynsym. Its names are taken as they
 *   are: a .symtab keeps versions ("cfree@GLIBC_2.2.5"), a .dynsym has
 *   none.
 * - functions, objects, and untyped labels of text sections, of
 *   allocated sections only; demangled without parameters nor return
 *   type (perf's DMGL_NO_OPTS unless verbose).
 * - a symbol without a size reaches up to the next one (the last to
 *   the page after next); then of several at one address one is kept:
 *   the one with a size, the non-weak, the global, the one with fewer
 *   leading underscores, the longer name, else the first. Sizes are
 *   fixed first, so of several unsized aliases the last wins.
 * - PLT entries are named "NAME@plt" from .rela.plt: on x86 the first
 *   entry (the header) is left out, each is sh_entsize long.
 * - an address no symbol covers is unknown: perf prints "[unknown]"
 *   and never guesses.
 *
 * A table is a flat array sorted by address, built once per file.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-perf-symtab.h"
#include "flame-search.h"
#include "flame-symbolizer.h"

typedef struct
{
  guint64     start;
  guint64     end;
  const char *name;
  guint32     order;   /* in the table: perf keeps it among equals */
  guint8      bind;
} PerfSym;
G_STATIC_ASSERT (G_STRUCT_OFFSET (PerfSym, start) == 0);

struct _FlamePerfSymtab
{
  GArray *syms;   /* PerfSym, sorted by start, one per start */
};

static Elf_Scn *
find_section (Elf        *elf,
              GElf_Word   type,
              const char *name,
              GElf_Shdr  *shdr)
{
  Elf_Scn *scn = NULL;
  size_t shstrndx;

  if (elf == NULL || elf_getshdrstrndx (elf, &shstrndx) != 0)
    return NULL;
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *n;

      if (gelf_getshdr (scn, shdr) == NULL)
        continue;
      if (name == NULL ? shdr->sh_type == type
                       : ((n = elf_strptr (elf, shstrndx, shdr->sh_name)) != NULL &&
                          strcmp (n, name) == 0))
        return scn;
    }
  return NULL;
}

static int
compare_syms (gconstpointer a,
              gconstpointer b)
{
  const PerfSym *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static guint
leading_underscores (const char *s)
{
  guint n = 0;

  while (s[n] == '_')
    n++;
  return n;
}

/* choose_best_symbol: TRUE when @b is to replace @a */
static gboolean
better (const PerfSym *a,
        const PerfSym *b)
{
  gboolean wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
  gboolean ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
  guint ua, ub;
  gsize na, nb;

  if ((a->end > a->start) != (b->end > b->start))
    return b->end > b->start;
  if (wa != wb)
    return wa;
  if (ga != gb)
    return gb;
  ua = leading_underscores (a->name);
  ub = leading_underscores (b->name);
  if (ua != ub)
    return ub < ua;
  na = strlen (a->name);
  nb = strlen (b->name);
  if (na != nb)
    return nb > na;
  /* arch__choose_best_symbol: not the "SyS" syscall aliases */
  return g_str_has_prefix (a->name, "SyS") || g_str_has_prefix (a->name, "compat_SyS");
}

static void
add_symbols (GArray       *syms,
             Elf          *elf,
             Elf_Scn      *table,
             GElf_Shdr    *table_shdr,
             GElf_Addr     bias,
             GStringChunk *strings)
{
  Elf_Data *data = elf_getdata (table, NULL);
  size_t shstrndx;
  gsize n;

  if (data == NULL || table_shdr->sh_entsize == 0 || elf_getshdrstrndx (elf, &shstrndx) != 0)
    return;
  n = table_shdr->sh_size / table_shdr->sh_entsize;
  for (gsize i = 0; i < n; i++)
    {
      GElf_Sym sym;
      GElf_Shdr shdr;
      Elf_Scn *scn;
      const char *name;
      int type, vis;
      gboolean label;
      PerfSym s;
      g_autofree char *demangled = NULL;

      if (gelf_getsym (data, i, &sym) == NULL || sym.st_name == 0 ||
          sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
        continue;
      type = GELF_ST_TYPE (sym.st_info);
      vis = GELF_ST_VISIBILITY (sym.st_other);
      label = type == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL;
      if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
        continue;
      if ((scn = elf_getscn (elf, sym.st_shndx)) == NULL || gelf_getshdr (scn, &shdr) == NULL ||
          !(shdr.sh_flags & SHF_ALLOC))
        continue;
      if (label)
        {
          const char *section = elf_strptr (elf, shstrndx, shdr.sh_name);

          if (section == NULL || strstr (section, "text") == NULL)
            continue;
        }
      if ((name = elf_strptr (elf, table_shdr->sh_link, sym.st_name)) == NULL)
        continue;
      demangled = flame_demangle_full (name, FALSE);
      s.start = sym.st_value + bias;
      s.end = s.start + sym.st_size;
      s.name = g_string_chunk_insert_const (strings, demangled);
      s.order = syms->len;
      s.bind = GELF_ST_BIND (sym.st_info);
      g_array_append_val (syms, s);
    }
}

/* symbols__fixup_end, then symbols__fixup_duplicate */
static void
fix_up (GArray *syms)
{
  PerfSym *s = (PerfSym *) (gpointer) syms->data;
  guint n = 0;

  g_array_sort (syms, compare_syms);
  for (guint i = 0; i + 1 < syms->len; i++)
    if (s[i].end == s[i].start)
      s[i].end = s[i + 1].start;
  if (syms->len > 0 && s[syms->len - 1].end == s[syms->len - 1].start)
    s[syms->len - 1].end = (s[syms->len - 1].start + 4095) / 4096 * 4096 + 4096;
  for (guint i = 0; i < syms->len; i++)
    {
      if (n > 0 && s[n - 1].start == s[i].start)
        {
          if (better (&s[n - 1], &s[i]))
            s[n - 1] = s[i];
          continue;
        }
      s[n++] = s[i];
    }
  g_array_set_size (syms, n);
}

/* dso__synthesize_plt_symbols: after the fix-ups, so their sizes stay */
static void
add_plt (GArray       *syms,
         Elf          *elf,
         GElf_Addr     bias,
         GStringChunk *strings)
{
  GElf_Shdr plt, rel, dynsym;
  Elf_Scn *rel_scn, *dynsym_scn;
  Elf_Data *rel_data, *sym_data;
  GElf_Ehdr ehdr;
  guint64 header, entry, at;
  gsize n;

  if (gelf_getehdr (elf, &ehdr) == NULL || find_section (elf, 0, ".plt", &plt) == NULL)
    return;
  if ((rel_scn = find_section (elf, 0, ".rela.plt", &rel)) == NULL &&
      (rel_scn = find_section (elf, 0, ".rel.plt", &rel)) == NULL)
    return;
  if ((dynsym_scn = find_section (elf, SHT_DYNSYM, NULL, &dynsym)) == NULL ||
      rel.sh_link != elf_ndxscn (dynsym_scn) || rel.sh_entsize == 0 ||
      (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL))
    return;
  rel_data = elf_getdata (rel_scn, NULL);
  sym_data = elf_getdata (dynsym_scn, NULL);
  if (rel_data == NULL || sym_data == NULL)
    return;
  switch (ehdr.e_machine)
    {
    case EM_ARM:
      header = 20, entry = 12;
      break;
    case EM_AARCH64:
      header = 32, entry = 16;
      break;
    default:
      header = entry = plt.sh_entsize;
      break;
    }
  at = plt.sh_addr + bias + header;
  n = rel.sh_size / rel.sh_entsize;
  for (gsize i = 0; i < n; i++, at += entry)
    {
      GElf_Rela rela;
      GElf_Rel r;
      GElf_Sym sym;
      GElf_Xword info;
      const char *name = NULL;
      g_autofree char *demangled = NULL;
      g_autofree char *label = NULL;
      PerfSym s;

      if (rel.sh_type == SHT_RELA ? gelf_getrela (rel_data, i, &rela) == NULL
                                  : gelf_getrel (rel_data, i, &r) == NULL)
        break;
      info = rel.sh_type == SHT_RELA ? rela.r_info : r.r_info;
      if (gelf_getsym (sym_data, GELF_R_SYM (info), &sym) != NULL)
        name = elf_strptr (elf, dynsym.sh_link, sym.st_name);
      demangled = flame_demangle_full (name != NULL ? name : "", FALSE);
      label = g_strconcat (demangled, "@plt", NULL);
      s.start = at;
      s.end = at + entry;
      s.name = g_string_chunk_insert_const (strings, label);
      s.order = syms->len;
      s.bind = STB_GLOBAL;
      g_array_append_val (syms, s);
    }
  g_array_sort (syms, compare_syms);
}

/**
 * flame_perf_symtab_new:
 * @elf: the module's file
 * @debug: (nullable): its debug file
 * @bias: what addresses in the module add to the files' values
 * @strings: where the names are kept
 */
FlamePerfSymtab *
flame_perf_symtab_new (Elf          *elf,
                       Elf          *debug,
                       GElf_Addr     bias,
                       GStringChunk *strings)
{
  FlamePerfSymtab *self = g_new0 (FlamePerfSymtab, 1);
  GElf_Shdr shdr;
  Elf_Scn *table;
  Elf *from = elf;

  self->syms = g_array_new (FALSE, FALSE, sizeof (PerfSym));
  if ((table = find_section (elf, SHT_SYMTAB, NULL, &shdr)) == NULL &&
      (table = find_section (debug, SHT_SYMTAB, NULL, &shdr)) != NULL)
    from = debug;
  if (table == NULL)
    table = find_section (elf, SHT_DYNSYM, NULL, &shdr);
  if (table != NULL)
    add_symbols (self->syms, from, table, &shdr, bias, strings);
  /* perf names the PLT only when the table gave something */
  if (self->syms->len > 0)
    {
      fix_up (self->syms);
      add_plt (self->syms, elf, bias, strings);
    }
  return self;
}

void
flame_perf_symtab_free (FlamePerfSymtab *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->syms);
  g_free (self);
}

/* NULL when no symbol covers @addr. Symbols may overlap (a sized one
 * reaching over the next, a PLT entry inside one stretched to it): the
 * one starting last before @addr that covers it. */
const char *
flame_perf_symtab_lookup (FlamePerfSymtab *self,
                          guint64          addr)
{
  const PerfSym *s = (const PerfSym *) (gpointer) self->syms->data;
  gsize lo = flame_partition_point (s, self->syms->len, sizeof (PerfSym),
                                    flame_starts_at_or_before, &addr);

  for (gsize i = lo, tries = 0; i-- > 0 && tries < 8; tries++)
    if (addr < s[i].end)
      return s[i].name;
  return NULL;
}
