/* flame-names.c: naming rules shared by the loaders and the recorder, so
 * that the same function has the same name whichever file it came from
 * (a perf script and the folded file collapsed from it, a recording).
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-names.h"

/* "::h" and 16 hex digits */
#define RUST_HASH_LEN 17

/**
 * flame_names_rust_legacy:
 * @sym: a symbol, not nul-terminated
 * @out: receives the name
 *
 * Rust's legacy mangling, as tools leave it half decoded:
 * "gc::gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::ha2ed0674a1c3dc9f"
 * (perf script, stackcollapse-perf.pl) or "core..str..Split$LT$$u27$a…"
 * (a C++ demangler). Decodes the "$…$" escapes and ".." as
 * rustc-demangle's legacy scheme does, and drops the "::h<16 hex>" hash,
 * which differs between builds of the same code. A name that is decoded
 * already ("core::fmt::write::h01cb…") only loses its hash. ';' (the
 * folded separator, "$u3b$") becomes ':', as the folded writers write it.
 *
 * Returns: %FALSE (and @out untouched) when @sym does not end in the hash
 */
gboolean
flame_names_rust_legacy (const char *sym,
                         gsize       len,
                         GString    *out)
{
  static const struct { const char *from; const char *to; } escapes[] = {
    { "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
    { "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
    { "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" }, { "$u3d$", "=" },
    { "$u5b$", "[" }, { "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" },
    { "$u3b$", ":" }, { "$u2b$", "+" }, { "$u21$", "!" }, { "$u22$", "\"" },
  };
  const char *p, *end;

  if (len < RUST_HASH_LEN || sym[len - RUST_HASH_LEN] != 'h')
    return FALSE;
  for (gsize i = len - RUST_HASH_LEN + 1; i < len; i++)
    if (!g_ascii_isxdigit (sym[i]))
      return FALSE;

  p = sym;
  end = sym + len - RUST_HASH_LEN;
  if (end - p >= 2 && end[-1] == ':' && end[-2] == ':')
    end -= 2;
  if (end - p >= 2 && p[0] == '_' && p[1] == '$')
    p++;

  g_string_truncate (out, 0);
  while (p < end)
    {
      if (*p == '.')
        {
          if (p + 1 < end && p[1] == '.')
            {
              g_string_append (out, "::");
              p += 2;
            }
          else
            {
              g_string_append_c (out, '.');
              p++;
            }
        }
      else if (*p == '$')
        {
          gsize i;

          for (i = 0; i < G_N_ELEMENTS (escapes); i++)
            {
              gsize n = strlen (escapes[i].from);

              if ((gsize) (end - p) >= n && memcmp (p, escapes[i].from, n) == 0)
                break;
            }
          if (i == G_N_ELEMENTS (escapes))
            {
              g_string_append_len (out, p, end - p);
              break;
            }
          g_string_append (out, escapes[i].to);
          p += strlen (escapes[i].from);
        }
      else
        {
          const char *q = p;
          while (q < end && *q != '$' && *q != '.')
            q++;
          g_string_append_len (out, p, q - p);
          p = q;
        }
    }
  return TRUE;
}
