/* flame-json.c: a thin, path-aware streaming (SAX) layer over yajl.
 *
 * Why yajl: it is a small C library with a callback (SAX) interface, in
 * Debian (libyajl2) and every other distribution, builds with cmake in a
 * few seconds for the Flatpak, keeps no document in memory, and reports
 * the byte offset where it stopped. A tree parser such as json-glib's
 * holds the whole document: 15x the file size in memory for a speedscope
 * file, and 8x slower than node's JSON.parse.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <yajl/yajl_parse.h>

#include "flame-error.h"
#include "flame-json.h"

/* Bytes handed to yajl per call: the granularity of progress reports and
 * cancellation checks. */
#define CHUNK ((gsize) 1 << 20)

struct _FlameJson
{
  yajl_handle     handle;
  FlameInput     *in;
  gsize           base;      /* offset of the chunk being parsed */
  guint           depth;
  FlameJsonFunc   func;
  gpointer        user_data;
  GError         *error;     /* set by a callback or by a limit */
  gboolean        keys;      /* deliver FLAME_JSON_KEY events */
  guint           sink_depth;  /* level of the array with an int sink, 0 = none */
  FlameJsonIntFunc sink;
  FlameJsonLevel  levels[FLAME_JSON_MAX_DEPTH + 1];
};

gsize
flame_json_offset (FlameJson *json)
{
  return json->base + yajl_get_bytes_consumed (json->handle);
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

/* A value starts: count it in the enclosing array. */
static inline void
begin_value (FlameJson *json)
{
  FlameJsonLevel *top = &json->levels[json->depth];

  if (json->depth > 0 && top->is_array)
    top->index++;
}

static inline int
deliver (FlameJson            *json,
         const FlameJsonValue *v)
{
  if (json->func == NULL)
    return 1;
  return json->func (json, v, json->user_data, &json->error) ? 1 : 0;
}

static int
cb_null (void *ctx)
{
  FlameJson *json = ctx;
  FlameJsonValue v = { .type = FLAME_JSON_NULL };

  begin_value (json);
  return deliver (json, &v);
}

static int
cb_boolean (void *ctx,
            int   b)
{
  FlameJson *json = ctx;
  FlameJsonValue v = { .type = FLAME_JSON_BOOL, .b = !!b, .i = !!b, .d = !!b };

  begin_value (json);
  return deliver (json, &v);
}

/* An integer outside a sink's array: the full event */
static inline int
deliver_int (FlameJson *json,
             gint64     i)
{
  FlameJsonValue v = { .type = FLAME_JSON_INT, .i = i, .d = (gdouble) i };

  return deliver (json, &v);
}

/* Any other number: strtod */
static G_NO_INLINE int
deliver_double (FlameJson  *json,
                const char *s,
                size_t      len)
{
  FlameJsonValue v = { .type = FLAME_JSON_INT };

  {
    char buf[128];

    if (len >= sizeof buf)
      {
        flame_json_set_error (json, &json->error, FLAME_ERROR_PARSE,
                              "a number is longer than %u characters",
                              (guint) sizeof buf - 1);
        return 0;
      }
    memcpy (buf, s, len);
    buf[len] = '\0';
    v.type = FLAME_JSON_DOUBLE;
    v.d = g_ascii_strtod (buf, NULL);
    if (v.d >= -9.2e18 && v.d <= 9.2e18 && v.d == (gdouble) (gint64) v.d)
      v.i = (gint64) v.d;
    else
      v.i = v.d < 0 ? G_MININT64 : G_MAXINT64;
  }
  return deliver (json, &v);
}

static int
cb_number (void       *ctx,
           const char *s,
           size_t      len)
{
  FlameJson *json = ctx;
  gsize i = 0;
  gboolean neg = FALSE;
  guint64 acc = 0;

  begin_value (json);

  /* the common case, short integers, without strtod */
  if (len > 0 && s[0] == '-')
    {
      neg = TRUE;
      i = 1;
    }
  if (len - i > 0 && len - i <= 18)
    {
      for (; i < len; i++)
        {
          guint c = (guint) (guchar) s[i] - '0';

          if (c > 9)
            break;
          acc = acc * 10 + c;
        }
      if (i == len)
        {
          gint64 value = neg ? -(gint64) acc : (gint64) acc;

          if (json->sink_depth == json->depth && json->sink != NULL)
            return json->sink (json, json->depth, value, json->user_data, &json->error) ? 1 : 0;
          return deliver_int (json, value);
        }
    }
  return deliver_double (json, s, len);
}

static int
cb_string (void                *ctx,
           const unsigned char *s,
           size_t               len)
{
  FlameJson *json = ctx;
  FlameJsonValue v = { .type = FLAME_JSON_STRING, .str = (const char *) s, .len = len };

  begin_value (json);
  if (len > FLAME_JSON_MAX_STRING)
    {
      flame_json_set_error (json, &json->error, FLAME_ERROR_TOO_LARGE,
                            "a string is longer than %d bytes", FLAME_JSON_MAX_STRING);
      return 0;
    }
  return deliver (json, &v);
}

static int
push (FlameJson *json,
      gboolean   is_array)
{
  FlameJsonLevel *l;
  FlameJsonValue v = { .type = is_array ? FLAME_JSON_START_ARRAY : FLAME_JSON_START_MAP };

  begin_value (json);
  if (json->depth >= FLAME_JSON_MAX_DEPTH)
    {
      flame_json_set_error (json, &json->error, FLAME_ERROR_TOO_LARGE,
                            "nested deeper than %d levels", FLAME_JSON_MAX_DEPTH);
      return 0;
    }
  l = &json->levels[++json->depth];
  l->is_array = is_array;
  l->index = -1;
  l->key_len = 0;
  l->key[0] = '\0';
  return deliver (json, &v);
}

static int
pop (FlameJson *json,
     gboolean   is_array)
{
  FlameJsonValue v = { .type = is_array ? FLAME_JSON_END_ARRAY : FLAME_JSON_END_MAP };
  int ret = deliver (json, &v);

  if (json->sink_depth == json->depth)
    {
      json->sink_depth = 0;
      json->sink = NULL;
    }
  json->depth--;
  return ret;
}

static int
cb_start_map (void *ctx)
{
  return push (ctx, FALSE);
}

static int
cb_end_map (void *ctx)
{
  return pop (ctx, FALSE);
}

static int
cb_start_array (void *ctx)
{
  return push (ctx, TRUE);
}

static int
cb_end_array (void *ctx)
{
  return pop (ctx, TRUE);
}

static int
cb_map_key (void                *ctx,
            const unsigned char *key,
            size_t               len)
{
  FlameJson *json = ctx;
  FlameJsonLevel *l = &json->levels[json->depth];

  if (len > FLAME_JSON_KEY_MAX)
    {
      l->key_len = 255;
      l->key[0] = '\0';
    }
  else
    {
      memcpy (l->key, key, len);
      l->key[len] = '\0';
      /* a key with a NUL in it ("a\u0000b") must not match "a" */
      l->key_len = memchr (key, 0, len) ? 255 : (guint8) len;
    }
  if (json->keys)
    {
      FlameJsonValue v = { .type = FLAME_JSON_KEY, .str = (const char *) key, .len = len };
      return deliver (json, &v);
    }
  return 1;
}

static const yajl_callbacks callbacks = {
  cb_null,
  cb_boolean,
  NULL,           /* integers and doubles both go through cb_number */
  NULL,
  cb_number,
  cb_string,
  cb_start_map,
  cb_map_key,
  cb_end_map,
  cb_start_array,
  cb_end_array,
};

static void
set_yajl_error (FlameJson     *json,
                const guchar  *chunk,
                gsize          chunk_len,
                GError       **error)
{
  guchar *msg = yajl_get_error (json->handle, 0, chunk, chunk_len);
  g_autofree char *text = g_strdup ((const char *) msg);

  yajl_free_error (json->handle, msg);
  g_strstrip (text);
  /* "parse error: premature EOF" and friends: keep yajl's reason */
  flame_json_set_error (json, error, FLAME_ERROR_PARSE, "invalid JSON (%s)", text);
}

/**
 * flame_json_parse:
 *
 * Streams @in through yajl and calls @func for every event. Errors name
 * the file and the byte offset: "file: byte N: reason".
 */
gboolean
flame_json_parse (FlameInput      *in,
                  FlameJsonFlags   flags,
                  FlameJsonFunc    func,
                  gpointer         user_data,
                  GError         **error)
{
  FlameJson *json = g_new (FlameJson, 1);
  gboolean ok = TRUE;
  yajl_status st;

  json->in = in;
  json->base = 0;
  json->depth = 0;
  json->func = func;
  json->user_data = user_data;
  json->error = NULL;
  json->keys = FALSE;
  json->sink_depth = 0;
  json->sink = NULL;
  json->levels[0].is_array = FALSE;
  json->levels[0].index = -1;
  json->levels[0].key_len = 0;
  json->levels[0].key[0] = '\0';
  json->handle = yajl_alloc (&callbacks, NULL, json);
  /* names are made valid UTF-8 once, when the profile is finished;
   * checking every string here as well would cost 20% of the parse */
  yajl_config (json->handle, yajl_dont_validate_strings, 1);
  if (flags & FLAME_JSON_ALLOW_PARTIAL)
    yajl_config (json->handle, yajl_allow_partial_values, 1);

  while (json->base < in->len)
    {
      gsize n = MIN (CHUNK, in->len - json->base);
      const guchar *chunk = (const guchar *) in->data + json->base;

      if (!flame_input_tick (in, json->base, error))
        {
          ok = FALSE;
          goto out;
        }
      st = yajl_parse (json->handle, chunk, n);
      if (st != yajl_status_ok)
        {
          if (st == yajl_status_client_canceled && json->error != NULL)
            g_propagate_error (error, g_steal_pointer (&json->error));
          else
            set_yajl_error (json, chunk, n, error);
          ok = FALSE;
          goto out;
        }
      json->base += n;
    }

  st = yajl_complete_parse (json->handle);
  if (st != yajl_status_ok)
    {
      if (st == yajl_status_client_canceled && json->error != NULL)
        g_propagate_error (error, g_steal_pointer (&json->error));
      else
        {
          /* offsets after the end are reported as the end */
          json->base = in->len;
          flame_input_set_error_at_byte (in, error, FLAME_ERROR_PARSE, in->len,
                                         "the JSON text is truncated or empty");
        }
      ok = FALSE;
    }

out:
  g_clear_error (&json->error);
  yajl_free (json->handle);
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
