/* flame-json.c: a path-aware streaming (SAX) JSON parser.
 *
 * Large JSON profiles (speedscope files and Chrome traces of hundreds of
 * MB) are read without a document tree: a tree parser such as
 * json-glib's holds 15x the file size for a speedscope file. The text is
 * in memory already (mapped or decompressed), so this parser walks it
 * with a pointer and no per-token allocation; it replaced yajl, whose
 * chunked lexer and callbacks cost 60% of a speedscope load, with the
 * same events and limits.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "flame-error.h"
#include "flame-json.h"
#include "flame-mapped.h"

/* How far behind the parser a mapped file's pages are given back
 * (flame_mapped_release): the loaders copy what they keep, so a file is
 * not resident as a whole besides what is built from it */
#define RELEASE_LAG ((gsize) 16 << 20)

/* What the parser expects next */
typedef enum
{
  EXPECT_VALUE,        /* a value (after "[", ",", ":" or at the start) */
  EXPECT_FIRST_VALUE,  /* a value or "]": just after "[" */
  EXPECT_KEY,          /* a key (after "," in an object) */
  EXPECT_FIRST_KEY,    /* a key or "}": just after "{" */
  EXPECT_AFTER,        /* ",", "]" or "}" after a value; the end at depth 0 */
} Expect;

struct _FlameJson
{
  FlameInput     *in;
  const char     *data;
  gsize           pos;       /* offset after the token being delivered */
  guint           depth;
  FlameJsonFunc   func;
  gpointer        user_data;
  GError         *error;     /* set by a callback or by a limit */
  gboolean        keys;      /* deliver FLAME_JSON_KEY events */
  gboolean        partial;   /* FLAME_JSON_ALLOW_PARTIAL */
  gboolean        ended;     /* a partial text ended inside a value */
  gsize           release_at;  /* offset of the next flame_mapped_release() */
  guint           sink_depth;  /* level of the array with an int sink, 0 = none */
  FlameJsonIntFunc sink;
  GString        *scratch;   /* strings with escapes, decoded */
  FlameJsonLevel  levels[FLAME_JSON_MAX_DEPTH + 1];
};

gsize
flame_json_offset (FlameJson *json)
{
  return json->pos;
}

/* Keys are not delivered by default: the level's key is enough to
 * match paths, and a callback per key would cost every loader. A loader
 * that must see keys whole (to re-serialise a subtree) turns this on for
 * as long as it needs them. */
void
flame_json_set_deliver_keys (FlameJson *json,
                             gboolean   deliver)
{
  json->keys = deliver;
}

/* For the innermost open container, which must be an array (else
 * nothing changes); NULL removes a sink. */
void
flame_json_set_int_sink (FlameJson        *json,
                         FlameJsonIntFunc  func)
{
  if (func == NULL || json->depth == 0 || !json->levels[json->depth].is_array)
    {
      json->sink_depth = 0;
      json->sink = NULL;
      return;
    }
  json->sink_depth = json->depth;
  json->sink = func;
}

FlameInput *
flame_json_input (FlameJson *json)
{
  return json->in;
}

guint
flame_json_depth (FlameJson *json)
{
  return json->depth;
}

const FlameJsonLevel *
flame_json_level (FlameJson *json,
                  guint      depth)
{
  g_return_val_if_fail (depth >= 1 && depth <= json->depth, NULL);
  return &json->levels[depth];
}

gboolean
flame_json_key_is (FlameJson  *json,
                   guint       depth,
                   const char *key)
{
  const FlameJsonLevel *l;

  if (depth < 1 || depth > json->depth)
    return FALSE;
  l = &json->levels[depth];
  return !l->is_array && l->key_len != 255 && strcmp (l->key, key) == 0;
}

void
flame_json_set_error (FlameJson   *json,
                      GError     **error,
                      gint         code,
                      const char  *format,
                      ...)
{
  va_list args;

  va_start (args, format);
  flame_input_set_error_at_bytev (json->in, error, code, flame_json_offset (json), format, args);
  va_end (args);
}

/* flame_json_want()'s error: always FALSE */
gboolean
flame_json_want_failed (FlameJson     *json,
                        FlameJsonWant  want,
                        const char    *what,
                        GError       **error)
{
  const char *kind;

  if (want & FLAME_JSON_WANT_INTEGER)
    kind = "an integer";
  else if (want & FLAME_JSON_WANT_NUMBER)
    kind = "a number";
  else
    kind = "a string";
  flame_json_set_error (json, error, FLAME_ERROR_PARSE, "%s must be %s", what, kind);
  return FALSE;
}

/* ---- the tokenizer ----
 *
 * The whole text is in memory (mapped or decompressed), so the parser
 * walks it with a pointer: strings without escapes are handed out where
 * they are, integers are accumulated as they are scanned, and nothing is
 * allocated per token. Its own stack (levels[]) holds the path; no
 * recursion. */

/* A syntax error at @p: "invalid JSON (reason)"; NULL, for the
 * functions that return where the text goes on */
static const char *
syntax_error (FlameJson  *json,
              const char *p,
              const char *reason)
{
  json->pos = p - json->data;
  g_clear_error (&json->error);
  flame_json_set_error (json, &json->error, FLAME_ERROR_PARSE, "invalid JSON (%s)", reason);
  return NULL;
}

/* A partial text ends inside a token: quietly. NULL, or the syntax
 * error @reason at @p when the text must be whole. */
static const char *
ends_early (FlameJson  *json,
            const char *p,
            const char *reason)
{
  if (json->partial)
    json->ended = TRUE;
  else
    syntax_error (json, p, reason);
  return NULL;
}

static inline gboolean
is_ws (char c)
{
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const char *
skip_space (const char *p,
            const char *end)
{
  while (p < end && is_ws (*p))
    p++;
  return p;
}

/* A value starts: count it in the enclosing array. */
static inline void
begin_value (FlameJson *json)
{
  FlameJsonLevel *top = &json->levels[json->depth];

  if (top->is_array)
    top->index++;
}

static inline gboolean
deliver (FlameJson            *json,
         const FlameJsonValue *v)
{
  if (json->func == NULL)
    return TRUE;
  return json->func (json, v, json->user_data, &json->error);
}

static gboolean
push (FlameJson  *json,
      const char *p,
      gboolean    is_array)
{
  FlameJsonLevel *l;
  FlameJsonValue v = { .type = is_array ? FLAME_JSON_START_ARRAY : FLAME_JSON_START_MAP };

  begin_value (json);
  json->pos = p + 1 - json->data;
  if (json->depth >= FLAME_JSON_MAX_DEPTH)
    {
      flame_json_set_error (json, &json->error, FLAME_ERROR_TOO_LARGE,
                            "nested deeper than %d levels", FLAME_JSON_MAX_DEPTH);
      return FALSE;
    }
  l = &json->levels[++json->depth];
  l->is_array = is_array;
  l->index = -1;
  l->key_len = 0;
  l->key[0] = '\0';
  return deliver (json, &v);
}

static gboolean
pop (FlameJson  *json,
     const char *p)
{
  FlameJsonValue v = { .type = json->levels[json->depth].is_array ? FLAME_JSON_END_ARRAY
                                                                  : FLAME_JSON_END_MAP };
  gboolean ok;

  json->pos = p + 1 - json->data;
  ok = deliver (json, &v);
  if (json->sink_depth == json->depth)
    {
      json->sink_depth = 0;
      json->sink = NULL;
    }
  json->depth--;
  return ok;
}

/* Whether any byte of @w is zero */
#define HAS_ZERO(w) (((w) - 0x0101010101010101ull) & ~(w) & 0x8080808080808080ull)

/* The first '"', '\\' or control character at or after @p, or @end:
 * eight bytes at a time. The lowest flagged byte of a word is exact (a
 * false flag can only follow a true one), so its position is the
 * answer. */
static inline const char *
scan_string (const char *p,
             const char *end)
{
  while (end - p >= 8)
    {
      guint64 w, hit;

      memcpy (&w, p, 8);
      w = GUINT64_FROM_LE (w);  /* the first byte lowest */
      hit = HAS_ZERO (w ^ 0x2222222222222222ull) | HAS_ZERO (w ^ 0x5c5c5c5c5c5c5c5cull) |
            ((w - 0x2020202020202020ull) & ~w & 0x8080808080808080ull);
      if (hit != 0)
        return p + __builtin_ctzll (hit) / 8;
      p += 8;
    }
  while (p < end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
    p++;
  return p;
}

static gint
hex_value (const char *p)
{
  gint v = 0;

  for (guint i = 0; i < 4; i++)
    {
      gint d = g_ascii_xdigit_value (p[i]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

static void
append_utf8 (GString *s,
             guint32  c)
{
  char buf[6];

  g_string_append_len (s, buf, g_unichar_to_utf8 (c, buf));
}

/* One escape at @p (the backslash) into json->scratch; the byte after
 * it, or NULL (partial: NULL with no error set when the text ends) */
static const char *
decode_escape (FlameJson  *json,
               const char *p,
               const char *end)
{
  static const char plain[] = "\"\\/bfnrt";
  static const char meant[] = "\"\\/\b\f\n\r\t";
  const char *hit;
  gint c, lo;

  if (end - p < 2)
    return ends_early (json, p, "the text ends inside a string");
  if (p[1] != 'u')
    {
      hit = p[1] != '\0' ? strchr (plain, p[1]) : NULL;
      if (hit == NULL)
        return syntax_error (json, p, "a string has an unknown escape");
      g_string_append_c (json->scratch, meant[hit - plain]);
      return p + 2;
    }
  if (end - p < 6)
    return ends_early (json, p, "the text ends inside a string");
  c = hex_value (p + 2);
  if (c < 0)
    return syntax_error (json, p, "a \\u escape needs four hex digits");
  p += 6;
  if (c >= 0xd800 && c <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
      (lo = hex_value (p + 2)) >= 0xdc00 && lo <= 0xdfff)
    {
      append_utf8 (json->scratch,
                   0x10000 + ((guint32) (c - 0xd800) << 10) + (guint32) (lo - 0xdc00));
      return p + 6;
    }
  if (c >= 0xd800 && c <= 0xdfff)
    g_string_append_c (json->scratch, '?');  /* a lone surrogate, as yajl wrote it */
  else if (c == 0)
    g_string_append_c (json->scratch, '\0');
  else
    append_utf8 (json->scratch, (guint32) c);
  return p;
}

/* The string whose opening quote is at @p: its text in @str and @len
 * (decoded into json->scratch when it has escapes); returns the byte
 * after the closing quote, or NULL */
static inline const char *
lex_string (FlameJson   *json,
            const char  *p,
            const char  *end,
            const char **str,
            gsize       *len)
{
  const char *s = p + 1;
  const char *q = scan_string (s, end);

  if (G_LIKELY (q < end && *q == '"'))
    {
      *str = s;
      *len = q - s;
      return q + 1;
    }
  g_string_truncate (json->scratch, 0);
  for (;;)
    {
      if (q >= end)
        return ends_early (json, p, "the text ends inside a string");
      if ((guchar) *q < 0x20)
        return syntax_error (json, q, "a control character in a string");
      g_string_append_len (json->scratch, s, q - s);
      if (*q == '"')
        break;
      s = decode_escape (json, q, end);
      if (s == NULL)
        return NULL;
      q = scan_string (s, end);
    }
  *str = json->scratch->str;
  *len = json->scratch->len;
  return q + 1;
}

static gboolean
string_too_long (FlameJson *json,
                 gsize      len)
{
  if (G_LIKELY (len <= FLAME_JSON_MAX_STRING))
    return FALSE;
  flame_json_set_error (json, &json->error, FLAME_ERROR_TOO_LARGE,
                        "a string is longer than %d bytes", FLAME_JSON_MAX_STRING);
  return TRUE;
}

static const char *
parse_string (FlameJson  *json,
              const char *p,
              const char *end)
{
  FlameJsonValue v = { .type = FLAME_JSON_STRING };

  begin_value (json);
  p = lex_string (json, p, end, &v.str, &v.len);
  if (p == NULL)
    return NULL;
  json->pos = p - json->data;
  if (string_too_long (json, v.len) || !deliver (json, &v))
    return NULL;
  return p;
}

/* A key at @p (its opening quote) into the level, delivered when asked
 * for; returns the byte after it */
static const char *
parse_key (FlameJson  *json,
           const char *p,
           const char *end)
{
  FlameJsonLevel *l = &json->levels[json->depth];
  const char *key;
  gsize len;

  p = lex_string (json, p, end, &key, &len);
  if (p == NULL)
    return NULL;
  json->pos = p - json->data;
  if (len > FLAME_JSON_KEY_MAX)
    {
      l->key_len = 255;
      l->key[0] = '\0';
    }
  else
    {
      memcpy (l->key, key, len);
      l->key[len] = '\0';
      /* a key with a NUL in it ("a\u0000b") must not match "a"; only an
       * escape makes one (raw control characters are refused) */
      l->key_len = key == json->scratch->str && memchr (key, 0, len) ? 255 : (guint8) len;
    }
  if (json->keys)
    {
      FlameJsonValue v = { .type = FLAME_JSON_KEY, .str = key, .len = len };

      if (string_too_long (json, len) || !deliver (json, &v))
        return NULL;
    }
  return p;
}

/* The end of the number at @p (JSON's grammar checked), or NULL */
static const char *
lex_number (FlameJson  *json,
            const char *p,
            const char *end)
{
  const char *start = p;

  if (p < end && *p == '-')
    p++;
  if (p < end && *p == '0')
    p++;
  else if (p < end && *p >= '1' && *p <= '9')
    while (p < end && g_ascii_isdigit (*p))
      p++;
  else
    goto bad;
  if (p < end && *p == '.')
    {
      if (++p >= end || !g_ascii_isdigit (*p))
        goto bad;
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      if (p >= end || !g_ascii_isdigit (*p))
        goto bad;
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }
  return p;

bad:
  if (p >= end)
    return ends_early (json, start, "a malformed number");
  return syntax_error (json, start, "a malformed number");
}

/* Any number but a short integer: strtod */
static G_NO_INLINE const char *
parse_double (FlameJson  *json,
              const char *p,
              const char *end)
{
  FlameJsonValue v = { .type = FLAME_JSON_DOUBLE };
  const char *q = lex_number (json, p, end);
  char buf[128];

  if (q == NULL)
    return NULL;
  json->pos = q - json->data;
  if ((gsize) (q - p) >= sizeof buf)
    {
      flame_json_set_error (json, &json->error, FLAME_ERROR_PARSE,
                            "a number is longer than %u characters", (guint) sizeof buf - 1);
      return NULL;
    }
  memcpy (buf, p, q - p);
  buf[q - p] = '\0';
  v.d = g_ascii_strtod (buf, NULL);
  if (v.d >= -9.2e18 && v.d <= 9.2e18 && v.d == (gdouble) (gint64) v.d)
    v.i = (gint64) v.d;
  else
    v.i = v.d < 0 ? G_MININT64 : G_MAXINT64;
  if (!deliver (json, &v))
    return NULL;
  return q;
}

/* An integer of at most 18 digits at @p into *value: the byte after
 * it, or NULL when it is anything else (a fraction, an exponent, a
 * leading zero, more digits, the end of a partial text) */
static inline const char *
lex_short_int (const char *p,
               const char *end,
               gint64     *value)
{
  gboolean neg = *p == '-';
  const char *d = p + neg;
  const char *q = d;
  guint64 acc = 0;

  /* past 18 digits acc wraps, and the number goes to parse_double() */
  while (q < end && (guint) (guchar) *q - '0' <= 9)
    acc = acc * 10 + ((guchar) *q++ - '0');
  if (q == d || q - d > 18 || (*d == '0' && q - d > 1) ||
      (q < end && (*q == '.' || *q == 'e' || *q == 'E')))
    return NULL;
  *value = neg ? -(gint64) acc : (gint64) acc;
  return q;
}

static inline const char *
parse_number (FlameJson  *json,
              const char *p,
              const char *end)
{
  gint64 value;
  const char *q = lex_short_int (p, end, &value);

  begin_value (json);
  if (G_UNLIKELY (q == NULL))
    return parse_double (json, p, end);
  json->pos = q - json->data;
  if (json->sink_depth == json->depth && json->sink != NULL)
    {
      if (!json->sink (json, json->depth, value, json->user_data, &json->error))
        return NULL;
    }
  else
    {
      FlameJsonValue v = { .type = FLAME_JSON_INT, .i = value, .d = (gdouble) value };

      if (!deliver (json, &v))
        return NULL;
    }
  return q;
}

/* The rest of an array with an int sink, while it holds short integers:
 * the bulk of a profile (samples, time deltas) in one tight loop. Returns
 * where the general loop goes on, with *expect saying what comes there
 * (a value that is no short integer, or what follows one), or NULL. */
static const char *
sink_ints (FlameJson  *json,
           const char *p,
           const char *end,
           Expect     *expect)
{
  FlameJsonLevel *top = &json->levels[json->depth];
  FlameJsonIntFunc sink = json->sink;
  guint depth = json->depth;
  /* where the general loop must look again: progress (a callback that
   * reports it only moves next_check on), pages to release, the end */
  const char *stop = json->data + MIN (MIN (json->in->next_check, json->release_at),
                                       json->in->len);

  *expect = EXPECT_VALUE;
  for (;;)
    {
      gint64 value;
      const char *q = lex_short_int (p, end, &value);

      if (q == NULL)
        return p;
      top->index++;
      json->pos = q - json->data;
      if (!sink (json, depth, value, json->user_data, &json->error))
        return NULL;
      *expect = EXPECT_AFTER;
      if (G_UNLIKELY (json->sink != sink || json->depth != depth))
        return q;
      p = skip_space (q, end);
      if (p >= end || *p != ',')
        return p;
      p = skip_space (p + 1, end);
      /* the general loop reports progress and the end of the text */
      if (G_UNLIKELY (p >= stop))
        return q;
      *expect = EXPECT_VALUE;
    }
}

static const char *
parse_literal (FlameJson  *json,
               const char *p,
               const char *end)
{
  static const char *const words[] = { "true", "false", "null" };
  FlameJsonValue v = { .type = FLAME_JSON_NULL };
  guint w = *p == 't' ? 0 : *p == 'f' ? 1 : 2;
  gsize n = strlen (words[w]);

  if ((gsize) (end - p) < n && memcmp (p, words[w], end - p) == 0)
    return ends_early (json, p, "the text ends inside a word");
  if ((gsize) (end - p) < n || memcmp (p, words[w], n) != 0)
    return syntax_error (json, p, "an unknown word");
  begin_value (json);
  if (w < 2)
    v = (FlameJsonValue) { .type = FLAME_JSON_BOOL, .b = w == 0, .i = w == 0, .d = w == 0 };
  json->pos = p + n - json->data;
  if (!deliver (json, &v))
    return NULL;
  return p + n;
}

/* A value at @p; *expect becomes what comes after its first token */
static inline const char *
parse_value (FlameJson  *json,
             const char *p,
             const char *end,
             Expect     *expect)
{
  switch (*p)
    {
    case '"':
      *expect = EXPECT_AFTER;
      return parse_string (json, p, end);
    case '[':
      *expect = EXPECT_FIRST_VALUE;
      return push (json, p, TRUE) ? p + 1 : NULL;
    case '{':
      *expect = EXPECT_FIRST_KEY;
      return push (json, p, FALSE) ? p + 1 : NULL;
    case 't':
    case 'f':
    case 'n':
      *expect = EXPECT_AFTER;
      return parse_literal (json, p, end);
    default:
      if (*p == '-' || g_ascii_isdigit (*p))
        {
          *expect = EXPECT_AFTER;
          return parse_number (json, p, end);
        }
      return syntax_error (json, p, "a value was expected");
    }
}

/* A key, then ":", at @p */
static const char *
parse_member_key (FlameJson  *json,
                  const char *p,
                  const char *end)
{
  if (*p != '"')
    return syntax_error (json, p, "a key was expected");
  p = parse_key (json, p, end);
  if (p == NULL)
    return NULL;
  p = skip_space (p, end);
  if (p >= end)
    return ends_early (json, p, "the text ends after a key");
  if (*p != ':')
    return syntax_error (json, p, "“:” was expected after a key");
  return p + 1;
}

/* After a value, at @p (not blank): the next element, the container's
 * end, or (at depth 0) trailing text */
static const char *
parse_after (FlameJson  *json,
             const char *p,
             Expect     *expect)
{
  gboolean is_array = json->levels[json->depth].is_array;

  if (json->depth == 0)
    return syntax_error (json, p, "text after the end of the JSON value");
  if (*p == ',')
    {
      *expect = is_array ? EXPECT_VALUE : EXPECT_KEY;
      return p + 1;
    }
  if (*p == (is_array ? ']' : '}'))
    return pop (json, p) ? p + 1 : NULL;
  return syntax_error (json, p, is_array ? "“,” or “]” was expected"
                                         : "“,” or “}” was expected");
}

/* The text ends: fine after a whole value, or anywhere when partial */
static gboolean
parse_end (FlameJson  *json,
           const char *end,
           Expect      expect)
{
  json->pos = end - json->data;
  if ((expect == EXPECT_AFTER && json->depth == 0) || json->partial)
    return TRUE;
  flame_input_set_error_at_byte (json->in, &json->error, FLAME_ERROR_PARSE, json->pos,
                                 "the JSON text is truncated or empty");
  return FALSE;
}

/* Progress, cancellation and the pages behind, every few MB */
static G_NO_INLINE gboolean
parse_tick (FlameJson  *json,
            const char *p)
{
  gsize off = p - json->data;

  if (off >= json->release_at)
    {
      flame_mapped_release (json->data, off - RELEASE_LAG);
      json->release_at = off + RELEASE_LAG;
    }
  return flame_input_tick (json->in, off, &json->error);
}

static gboolean
parse_text (FlameJson *json)
{
  const char *p = json->data;
  const char *end = json->data + json->in->len;
  Expect expect = EXPECT_VALUE;

  /* a UTF-8 byte order mark */
  if (end - p >= 3 && memcmp (p, "\xef\xbb\xbf", 3) == 0)
    p += 3;
  for (;;)
    {
      p = skip_space (p, end);
      if (G_UNLIKELY (p >= end))
        return parse_end (json, end, expect);
      if (G_UNLIKELY ((gsize) (p - json->data) >= MIN (json->in->next_check, json->release_at)) &&
          !parse_tick (json, p))
        return FALSE;
      switch (expect)
        {
        case EXPECT_FIRST_VALUE:
          if (*p == ']')
            {
              p = pop (json, p) ? p + 1 : NULL;
              expect = EXPECT_AFTER;
              break;
            }
          G_GNUC_FALLTHROUGH;
        case EXPECT_VALUE:
          if (json->sink_depth == json->depth && json->sink != NULL)
            {
              p = sink_ints (json, p, end, &expect);
              if (p == NULL || expect == EXPECT_AFTER)
                break;
            }
          p = parse_value (json, p, end, &expect);
          break;
        case EXPECT_FIRST_KEY:
          if (*p == '}')
            {
              p = pop (json, p) ? p + 1 : NULL;
              expect = EXPECT_AFTER;
              break;
            }
          G_GNUC_FALLTHROUGH;
        case EXPECT_KEY:
          p = parse_member_key (json, p, end);
          expect = EXPECT_VALUE;
          break;
        case EXPECT_AFTER:
        default:
          p = parse_after (json, p, &expect);
          break;
        }
      if (G_UNLIKELY (p == NULL))
        return json->ended;
    }
}

/**
 * flame_json_parse:
 *
 * Parses @in and calls @func for every event. Errors name the file and
 * the byte offset: "file: byte N: reason".
 */
gboolean
flame_json_parse (FlameInput      *in,
                  FlameJsonFlags   flags,
                  FlameJsonFunc    func,
                  gpointer         user_data,
                  GError         **error)
{
  FlameJson *json = g_new (FlameJson, 1);
  gboolean ok;

  json->in = in;
  /* an empty text may have no buffer at all (g_memdup2 of 0 bytes) */
  json->data = in->data != NULL ? in->data : "";
  json->pos = 0;
  json->depth = 0;
  json->func = func;
  json->user_data = user_data;
  json->error = NULL;
  json->keys = FALSE;
  json->partial = (flags & FLAME_JSON_ALLOW_PARTIAL) != 0;
  json->ended = FALSE;
  json->release_at = 2 * RELEASE_LAG;
  json->sink_depth = 0;
  json->sink = NULL;
  json->scratch = g_string_new (NULL);
  json->levels[0].is_array = FALSE;
  json->levels[0].index = -1;
  json->levels[0].key_len = 0;
  json->levels[0].key[0] = '\0';

  ok = flame_input_tick (in, 0, &json->error) && parse_text (json);
  if (!ok)
    {
      if (json->error == NULL)
        flame_json_set_error (json, &json->error, FLAME_ERROR_PARSE, "invalid JSON (stopped)");
      g_propagate_error (error, g_steal_pointer (&json->error));
    }
  g_clear_error (&json->error);
  g_string_free (json->scratch, TRUE);
  g_free (json);
  return ok;
}

static gsize
skip_ws (const char *d,
         gsize       len,
         gsize       i)
{
  while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
    i++;
  return i;
}

/* Returns the offset after the closing quote of the string at @i. */
static gsize
skip_string (const char *d,
             gsize       len,
             gsize       i)
{
  for (i++; i < len; i++)
    {
      if (d[i] == '\\')
        i++;
      else if (d[i] == '"')
        return i + 1;
    }
  return len;
}

GPtrArray *
flame_json_top_keys (const char *data,
                     gsize       len,
                     guint       max_keys,
                     gsize       max_bytes)
{
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);
  gsize end = MIN (len, max_bytes);
  gsize i = skip_ws (data, end, 0);
  guint depth;

  if (i >= end)
    return keys;
  if (data[i] == '[')
    {
      g_ptr_array_add (keys, g_strdup ("["));
      return keys;
    }
  if (data[i] != '{')
    return keys;
  i++;

  while (keys->len < max_keys)
    {
      gsize k;

      i = skip_ws (data, end, i);
      if (i >= end || data[i] != '"')
        break;
      k = skip_string (data, end, i);
      if (k >= end)
        break;
      g_ptr_array_add (keys, g_strndup (data + i + 1, k - i - 2));
      i = skip_ws (data, end, k);
      if (i >= end || data[i] != ':')
        break;
      i++;
      /* skip the value: count brackets outside strings */
      depth = 0;
      for (; i < end; i++)
        {
          char c = data[i];

          if (c == '"')
            {
              i = skip_string (data, end, i) - 1;
              if (depth == 0)
                {
                  i++;
                  break;
                }
            }
          else if (c == '{' || c == '[')
            depth++;
          else if (c == '}' || c == ']')
            {
              if (depth == 0)
                break;
              if (--depth == 0)
                {
                  i++;
                  break;
                }
            }
          else if (c == ',' && depth == 0)
            break;
        }
      i = skip_ws (data, end, i);
      if (i >= end || data[i] != ',')
        break;
      i++;
    }
  return keys;
}
