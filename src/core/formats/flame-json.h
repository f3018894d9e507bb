/* flame-json.h: a path-aware streaming (SAX) JSON parser.
 *
 * Large JSON profiles (Chrome traces, speedscope files of hundreds of MB)
 * are read without building a document tree: the loader's callback sees
 * one event per value, with the path to it (keys and array indices of
 * every enclosing container) kept here.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "flame-input.h"

G_BEGIN_DECLS

/* Deepest nesting accepted. Every profile format needs fewer than 16
 * levels; the limit keeps hostile input from growing the parser's
 * stack (and json-glib's recursion, which we validate for) without end. */
#define FLAME_JSON_MAX_DEPTH   512
/* Longest string value accepted (names are further limited to
 * FLAME_MAX_NAME_LEN by the loaders). */
#define FLAME_JSON_MAX_STRING  (16 * 1024 * 1024)
/* Keys longer than this never match a key a loader asks for. */
#define FLAME_JSON_KEY_MAX     47

typedef enum
{
  FLAME_JSON_NULL,
  FLAME_JSON_BOOL,
  FLAME_JSON_INT,      /* an integer that fits in gint64 (also in .d) */
  FLAME_JSON_DOUBLE,   /* any other number */
  FLAME_JSON_STRING,
  FLAME_JSON_START_MAP,
  FLAME_JSON_END_MAP,
  FLAME_JSON_START_ARRAY,
  FLAME_JSON_END_ARRAY,
  FLAME_JSON_KEY,      /* a map key (str/len), only while keys are asked for */
} FlameJsonType;

typedef struct
{
  FlameJsonType  type;
  gboolean       b;
  gint64         i;
  gdouble        d;
  const char    *str;   /* not NUL-terminated; valid during the callback */
  gsize          len;
} FlameJsonValue;

typedef struct
{
  gboolean is_array;
  gint64   index;                       /* element index in an array */
  guint8   key_len;                     /* 255 = longer than KEY_MAX */
  char     key[FLAME_JSON_KEY_MAX + 1]; /* current key in an object */
} FlameJsonLevel;

typedef struct _FlameJson FlameJson;

/* Called for every value and for container starts and ends. The depth
 * (flame_json_depth) counts the containers around the value; for
 * START_* events the new container is already pushed, for END_* it is
 * still there. Return FALSE with @error set to stop. */
typedef gboolean (*FlameJsonFunc) (FlameJson             *json,
                                   const FlameJsonValue  *value,
                                   gpointer               user_data,
                                   GError               **error);

/* Called instead of the FlameJsonFunc for integers (FLAME_JSON_INT
 * values) directly in the array that was innermost when it was set, until
 * that array ends: the bulk of a profile without a FlameJsonValue each.
 * @depth is flame_json_depth(): the array's level, as for the FlameJsonFunc. */
typedef gboolean (*FlameJsonIntFunc) (FlameJson  *json,
                                      guint       depth,
                                      gint64      value,
                                      gpointer    user_data,
                                      GError    **error);

typedef enum
{
  FLAME_JSON_ALLOW_PARTIAL = 1 << 0,  /* truncated input ends quietly */
} FlameJsonFlags;

gboolean        flame_json_parse        (FlameInput     *in,
                                         FlameJsonFlags  flags,
                                         FlameJsonFunc   func,
                                         gpointer        user_data,
                                         GError        **error);
guint           flame_json_depth        (FlameJson      *json);
const FlameJsonLevel *flame_json_level  (FlameJson      *json,
                                         guint           depth);
gboolean        flame_json_key_is       (FlameJson      *json,
                                         guint           depth,
                                         const char     *key);
gsize           flame_json_offset       (FlameJson      *json);
void            flame_json_set_deliver_keys (FlameJson  *json,
                                         gboolean        deliver);
void            flame_json_set_int_sink (FlameJson      *json,
                                         FlameJsonIntFunc func);
FlameInput     *flame_json_input        (FlameJson      *json);
void            flame_json_set_error    (FlameJson      *json,
                                         GError        **error,
                                         gint            code,
                                         const char     *format,
                                         ...) G_GNUC_PRINTF (4, 5);

/* What a loader accepts for a value: one kind, and optionally null */
typedef enum
{
  FLAME_JSON_WANT_INTEGER = 1 << 0,
  FLAME_JSON_WANT_NUMBER  = 1 << 1,  /* an integer or any other number */
  FLAME_JSON_WANT_STRING  = 1 << 2,
  FLAME_JSON_WANT_NULL    = 1 << 3,  /* null is accepted as well */
} FlameJsonWant;

gboolean        flame_json_want_failed  (FlameJson            *json,
                                         FlameJsonWant         want,
                                         const char           *what,
                                         GError              **error);

/* Whether @value is of the kind asked for; if not, an error at the
 * current offset saying what @what must be. Inline: loaders check every
 * weight of a profile with it. */
static inline gboolean
flame_json_want (FlameJson            *json,
                 const FlameJsonValue *value,
                 FlameJsonWant         want,
                 const char           *what,
                 GError              **error)
{
  gboolean ok;

  switch ((int) value->type)
    {
    case FLAME_JSON_INT:
      ok = (want & (FLAME_JSON_WANT_INTEGER | FLAME_JSON_WANT_NUMBER)) != 0;
      break;
    case FLAME_JSON_DOUBLE:
      ok = (want & FLAME_JSON_WANT_NUMBER) != 0;
      break;
    case FLAME_JSON_STRING:
      ok = (want & FLAME_JSON_WANT_STRING) != 0;
      break;
    case FLAME_JSON_NULL:
      ok = (want & FLAME_JSON_WANT_NULL) != 0;
      break;
    default:
      ok = FALSE;
      break;
    }
  return G_LIKELY (ok) || flame_json_want_failed (json, want, what, error);
}

/* Top-level keys of an object, or "[" for a top-level array, found
 * without decoding values: the content sniffer's view of a JSON file.
 * Stops after @max_keys keys or @max_bytes bytes. */
GPtrArray      *flame_json_top_keys     (const char     *data,
                                         gsize           len,
                                         guint           max_keys,
                                         gsize           max_bytes);

G_END_DECLS
