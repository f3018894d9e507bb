/* test-spool.c: flame_recorder_recover() on spools built record by
 * record: damaged, truncated or hostile ones, as fuzz-spool finds them
 * (tests/fuzz/regressions/spool). Recordings of real programs and their
 * recovery are in test-capture.c.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "flame-recorder.h"
#include "flame-sampler-protocol.h"

static char *dir;

#define HEADER \
  "[recording]\n" \
  "argv=/usr/bin/spin;0.2;\n" \
  "cwd=/tmp\n" \
  "hz=1000\n" \
  "start-time=2026-01-02T03:04:05Z\n"

/* "FLAMESPOOL1\n", then the header (@body, or HEADER with a start time
 * and an output path): @pad bytes of comment first, so that the records
 * after it start at any alignment */
static GString *
spool_new_with (guint       pad,
                const char *body)
{
  GString *s = g_string_new ("FLAMESPOOL1\n");
  g_autoptr(GString) header = g_string_new (NULL);
  guint32 n;

  if (pad > 0)
    {
      g_string_append (header, "#");
      for (guint i = 1; i < pad - 1; i++)
        g_string_append_c (header, 'x');
      g_string_append_c (header, '\n');
    }
  g_string_append (header, body);
  n = header->len;
  g_string_append_len (s, (const char *) &n, 4);
  g_string_append_len (s, header->str, header->len);
  return s;
}

static GString *
spool_new (guint pad)
{
  return spool_new_with (pad, HEADER
                         "start-realtime-us=1767323045000000\n"
                         "output=/nonexistent/elsewhere.json\n");
}

static void
spool_add (GString    *s,
           const void *record,
           gsize       len)
{
  guint32 n = len;

  g_string_append_len (s, (const char *) &n, 4);
  g_string_append_len (s, record, len);
}

static void
add_hello (GString    *s,
           gint32      pid,
           const char *comm)
{
  FlameRecHello h = { 0 };

  h.h.magic = FLAME_SAMPLER_MAGIC;
  h.h.type = FLAME_REC_HELLO;
  h.h.pid = h.h.tid = pid;
  h.ppid = 1;
  h.hz = 1000;
  memcpy (h.comm, comm, MIN (strlen (comm), sizeof h.comm));
  spool_add (s, &h, sizeof h);
}

static void
add_module (GString    *s,
            gint32      pid,
            guint64     lo,
            guint64     hi,
            const char *path)
{
  g_autoptr(GByteArray) r = g_byte_array_new ();
  FlameRecModule m = { 0 };

  m.h.magic = FLAME_SAMPLER_MAGIC;
  m.h.type = FLAME_REC_MODULE;
  m.h.pid = m.h.tid = pid;
  m.base = m.lo = lo;
  m.hi = hi;
  m.path_len = strlen (path);
  g_byte_array_append (r, (const guint8 *) &m, sizeof m);
  g_byte_array_append (r, (const guint8 *) path, m.path_len);
  spool_add (s, r->data, r->len);
}

static gboolean
has_warning (FlameProfile *profile,
             const char   *text)
{
  GPtrArray *warnings = flame_profile_get_warnings (profile);

  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    if (strstr (g_ptr_array_index (warnings, i), text) != NULL)
      return TRUE;
  return FALSE;
}

static void
add_sample (GString *s,
            gint32   pid,
            gint32   tid,
            guint64  ip)
{
  struct
  {
    FlameRecSample s;
    guint64        ips[1];
  } r = { 0 };

  r.s.h.magic = FLAME_SAMPLER_MAGIC;
  r.s.h.type = FLAME_REC_SAMPLE;
  r.s.h.pid = pid;
  r.s.h.tid = tid;
  r.s.n_frames = 1;
  r.s.weight = 1;
  r.ips[0] = ip;
  spool_add (s, &r, sizeof r);
}

/* Writes @s as NAME.spool in the test's directory; returns its path */
static char *
write_spool (GString    *s,
             const char *name)
{
  g_autofree char *file = g_strconcat (name, ".spool", NULL);
  char *path = g_build_filename (dir, file, NULL);

  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  return path;
}

/* Recovers @spool, which must succeed and write NAME next to it */
static FlameProfile *
recover (const char *spool)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *output = g_strndup (spool, strlen (spool) - strlen (".spool"));
  FlameProfile *profile = flame_recorder_recover (spool, &error);

  g_assert_no_error (error);
  g_assert_nonnull (profile);
  g_assert_cmpstr (flame_profile_get_path (profile), ==, output);
  g_assert_true (g_file_test (output, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (spool, G_FILE_TEST_EXISTS));
  return profile;
}

/* An empty file (maps to NULL): not a spool, and nothing is written */
static void
test_empty (void)
{
  g_autofree char *spool = write_spool (g_string_new (NULL), "empty");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = flame_recorder_recover (spool, &error);
  g_autofree char *output = g_strndup (spool, strlen (spool) - strlen (".spool"));

  g_assert_null (profile);
  g_assert_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "is not a recording spool"));
  g_assert_true (g_file_test (spool, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (output, G_FILE_TEST_EXISTS));
  g_unlink (spool);
}

/* The header's length decides where the records start: each record is
 * read at whatever alignment it has (under UBSan, a misaligned struct
 * access stops the test), and every sample counts */
static void
test_any_alignment (void)
{
  for (guint pad = 0; pad < 8; pad++)
    {
      g_autofree char *name = g_strdup_printf ("aligned-%u", pad);
      GString *s = spool_new (pad == 0 ? 0 : pad + 2);
      g_autofree char *spool = NULL;
      g_autoptr(FlameProfile) profile = NULL;

      add_hello (s, 100, "spin");
      for (guint i = 0; i < 5; i++)
        add_sample (s, 100, 100 + i % 2, 0x1000 + i);
      spool = write_spool (s, name);
      profile = recover (spool);
      g_assert_cmpstr (flame_profile_get_metadata (profile, "samples"), ==, "5");
      g_assert_cmpstr (flame_profile_get_metadata (profile, "processes"), ==, "1");
    }
}

/* A process with no samples (a fork child that never ran long enough,
 * or one not followed) next to one with samples */
static void
test_image_without_samples (void)
{
  GString *s = spool_new (0);
  g_autofree char *spool = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  add_hello (s, 100, "parent");
  add_hello (s, 101, "idle");
  add_sample (s, 100, 100, 0x1000);
  spool = write_spool (s, "without-samples");
  profile = recover (spool);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "samples"), ==, "1");
  g_assert_cmpstr (flame_profile_get_metadata (profile, "processes"), ==, "2");
}

/* A start time after the spool's last write, or far before 1970 (the
 * subtraction overflowed): the duration is unknown, 0 */
static void
test_start_time_damage (void)
{
  const char *starts[] = { "-9223372036854775807", "9223372036854775807", "0" };

  for (guint i = 0; i < G_N_ELEMENTS (starts); i++)
    {
      g_autofree char *body = g_strdup_printf (HEADER "start-realtime-us=%s\n"
                                               "output=/nonexistent/elsewhere.json\n",
                                               starts[i]);
      g_autofree char *name = g_strdup_printf ("start-%u", i);
      GString *s = spool_new_with (0, body);
      g_autofree char *spool = NULL;
      g_autoptr(FlameProfile) profile = NULL;

      add_hello (s, 100, "spin");
      add_sample (s, 100, 100, 0x1000);
      spool = write_spool (s, name);
      profile = recover (spool);
      g_assert_cmpstr (flame_profile_get_metadata (profile, "duration_ms"), ==, "0.000");
    }
}

/* A module that names a FIFO (or a device): never opened, which would
 * block recovery for good; the recording says why it has no names */
static void
test_module_not_regular (void)
{
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  GString *s = spool_new (0);
  g_autofree char *spool = NULL;
  g_autoptr(FlameProfile) profile = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  add_hello (s, 100, "spin");
  add_module (s, 100, 0x10000, 0x20000, fifo);
  add_module (s, 100, 0x30000, 0x40000, "/dev/zero");
  add_sample (s, 100, 100, 0x10100);
  add_sample (s, 100, 100, 0x30100);
  spool = write_spool (s, "fifo-module");
  profile = recover (spool);
  g_assert_cmpstr (flame_profile_get_metadata (profile, "samples"), ==, "2");
  g_assert_true (has_warning (profile, "fifo: not a regular file"));
  g_assert_true (has_warning (profile, "/dev/zero: not a regular file"));
  g_unlink (fifo);
}

/* The recording goes next to the spool, never where its header says
 * (here: a file in the same folder that must stay as it is); a spool
 * not named *.spool gets ".speedscope.json" added */
static void
test_output_next_to_spool (void)
{
  g_autofree char *victim = g_build_filename (dir, "victim.json", NULL);
  g_autofree char *body = g_strdup_printf (HEADER "start-realtime-us=1767323045000000\n"
                                           "output=%s\n", victim);
  g_autofree char *spool = g_build_filename (dir, "copy.bin", NULL);
  g_autofree char *output = g_strconcat (spool, ".speedscope.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  GString *s = spool_new_with (0, body);

  add_hello (s, 100, "spin");
  add_sample (s, 100, 100, 0x1000);
  g_assert_true (g_file_set_contents (spool, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_assert_true (g_file_set_contents (victim, "keep", -1, NULL));

  profile = flame_recorder_recover (spool, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (flame_profile_get_path (profile), ==, output);
  g_assert_true (g_file_test (output, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (spool, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (victim, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "keep");
}

int
main (int    argc,
      char **argv)
{
  GError *error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("flamediff-spool-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/spool/empty", test_empty);
  g_test_add_func ("/spool/any-alignment", test_any_alignment);
  g_test_add_func ("/spool/image-without-samples", test_image_without_samples);
  g_test_add_func ("/spool/start-time-damage", test_start_time_damage);
  g_test_add_func ("/spool/module-not-regular", test_module_not_regular);
  g_test_add_func ("/spool/output-next-to-spool", test_output_next_to_spool);
  status = g_test_run ();

  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);

        g_unlink (path);
      }
  }
  g_rmdir (dir);
  g_free (dir);
  return status;
}
