/* flame-recorder.c: record a command with libflamediff-sampler.so.
 *
 * The whole recording runs in one worker thread (GTask): spawn with the
 * sampler preloaded and one end of a SOCK_SEQPACKET pair at a fixed
 * descriptor, read records while the program runs, stop it on request
 * (SIGINT, then SIGKILL after a grace period), then symbolise every
 * process image with libdwfl and write speedscope JSON atomically
 * (flame-recorder-profile.c; the checks before launch are in
 * flame-recorder-check.c). The counters the UI shows (elapsed, samples,
 * lost) are published to the caller's main context as properties.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flame-recorder-private.h"
#include "flame-sandbox.h"

#define DEFAULT_GRACE_MS 2000
#define TAIL_MS 1000   /* reading after the command exits: its children */
/* the receive buffer: no record is longer, in the socket or the spool */
#define RECORD_BUF_SIZE (FLAME_SAMPLER_MAX_RECORD * 8)

G_DEFINE_QUARK (flame-recorder-error-quark, flame_recorder_error)


enum
{
  PROP_0,
  PROP_ELAPSED,
  PROP_SAMPLES,
  PROP_LOST,
  PROP_RECORDING,
  N_PROPS
};

enum
{
  SIGNAL_OUTPUT,
  N_SIGNALS
};

static GParamSpec *props[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FlameRecorder, flame_recorder, G_TYPE_OBJECT)

static void
module_clear (Module *m)
{
  g_free (m->path);
  g_clear_pointer (&m->build_id, g_bytes_unref);
}

static Epoch *
epoch_new (void)
{
  Epoch *e = g_new0 (Epoch, 1);

  e->modules = g_array_new (FALSE, TRUE, sizeof (Module));
  g_array_set_clear_func (e->modules, (GDestroyNotify) module_clear);
  return e;
}

static void
epoch_free (Epoch *e)
{
  g_array_unref (e->modules);
  flame_symbolizer_free (e->sym);
  g_free (e);
}

static Epoch *
epoch_copy (Epoch *src)
{
  Epoch *e = epoch_new ();

  for (guint i = 0; src != NULL && i < src->modules->len; i++)
    {
      Module m = g_array_index (src->modules, Module, i);

      m.path = g_strdup (m.path);
      if (m.build_id != NULL)
        g_bytes_ref (m.build_id);
      g_array_append_val (e->modules, m);
    }
  return e;
}

static void
image_free (Image *img)
{
  g_free (img->comm);
  g_free (img->exe);
  g_ptr_array_unref (img->epochs);
  g_byte_array_unref (img->samples);
  g_array_unref (img->mem);
  flame_py_codes_free (img->py);
  g_free (img);
}

static Image *
image_new (FlameRecorder *self,
           gint32         pid)
{
  Image *img = g_new0 (Image, 1);

  img->pid = pid;
  img->epochs = g_ptr_array_new_with_free_func ((GDestroyNotify) epoch_free);
  img->samples = g_byte_array_new ();
  img->mem = g_array_new (FALSE, FALSE, sizeof (MemEvent));
  img->py = flame_py_codes_new ();
  g_ptr_array_add (self->images, img);
  g_hash_table_replace (self->current, GINT_TO_POINTER (pid), img);
  return img;
}

static void
flame_recorder_finalize (GObject *object)
{
  FlameRecorder *self = FLAME_RECORDER (object);

  g_strfreev (self->argv);
  g_free (self->cwd);
  g_ptr_array_unref (self->env);
  g_free (self->output_path);
  g_free (self->host_sampler);
  g_free (self->host_root);
  g_free (self->spool_path);
  g_clear_pointer (&self->spool_writer, flame_spool_writer_free);
  g_mutex_clear (&self->lock);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_hash_table_unref (self->current);
  g_ptr_array_unref (self->images);
  g_ptr_array_unref (self->notes);
  g_ptr_array_unref (self->runtimes);
  g_ptr_array_unref (self->jit_maps);
  G_OBJECT_CLASS (flame_recorder_parent_class)->finalize (object);
}

static void
flame_recorder_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  FlameRecorder *self = FLAME_RECORDER (object);

  switch (prop_id)
    {
    case PROP_ELAPSED:
      g_value_set_double (value, self->elapsed);
      break;
    case PROP_SAMPLES:
      g_value_set_uint64 (value, self->samples);
      break;
    case PROP_LOST:
      g_value_set_uint64 (value, self->lost);
      break;
    case PROP_RECORDING:
      g_value_set_boolean (value, self->recording);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
flame_recorder_class_init (FlameRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = flame_recorder_finalize;
  object_class->get_property = flame_recorder_get_property;

  props[PROP_ELAPSED] = g_param_spec_double ("elapsed", NULL, "Seconds since the command started",
                                             0, G_MAXDOUBLE, 0,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                               G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_SAMPLES] = g_param_spec_uint64 ("samples", NULL, "Samples received", 0, G_MAXUINT64, 0,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                               G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_LOST] = g_param_spec_uint64 ("lost", NULL, "Samples the program could not send", 0,
                                          G_MAXUINT64, 0,
                                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                            G_PARAM_EXPLICIT_NOTIFY);
  props[PROP_RECORDING] = g_param_spec_boolean ("recording", NULL, "The command is running", FALSE,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS |
                                                  G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, props);

  /**
   * FlameRecorder::output:
   * @text: a chunk of the program's standard output and error
   *
   * Only with capture-output on; emitted on the recording's main context.
   */
  signals[SIGNAL_OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
flame_recorder_init (FlameRecorder *self)
{
  g_mutex_init (&self->lock);
  self->env = g_ptr_array_new_with_free_func (g_free);
  self->hz = FLAME_RECORDER_DEFAULT_HZ;
  self->follow_children = TRUE;
  self->grace_ms = DEFAULT_GRACE_MS;
  self->spool = TRUE;
  self->current = g_hash_table_new (NULL, NULL);
  self->images = g_ptr_array_new_with_free_func ((GDestroyNotify) image_free);
  self->notes = g_ptr_array_new_with_free_func (g_free);
  self->runtimes = g_ptr_array_new_with_free_func (g_free);
  self->jit_maps = g_ptr_array_new_with_free_func (g_free);
}

FlameRecorder *
flame_recorder_new (const char * const *argv)
{
  FlameRecorder *self = g_object_new (FLAME_TYPE_RECORDER, NULL);

  self->argv = g_strdupv ((char **) argv);
  return self;
}

void
flame_recorder_set_cwd (FlameRecorder *self,
                        const char    *cwd)
{
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
}

void
flame_recorder_setenv (FlameRecorder *self,
                       const char    *name,
                       const char    *value)
{
  g_ptr_array_add (self->env, g_strdup_printf ("%s=%s", name, value));
}

void
flame_recorder_set_frequency (FlameRecorder *self,
                              guint          hz)
{
  self->hz = CLAMP (hz, 1, 100000);
}

void
flame_recorder_set_follow_children (FlameRecorder *self,
                                    gboolean       follow)
{
  self->follow_children = follow;
}

/* only the Python frames of a Python program (and the thread's root) */
void
flame_recorder_set_python_only (FlameRecorder *self,
                                gboolean       python_only)
{
  g_return_if_fail (FLAME_IS_RECORDER (self));
  self->python_only = python_only;
}

/* Python frames per source line running (the line in the frame) rather
 * than per function (its first line) */
void
flame_recorder_set_python_lines (FlameRecorder *self,
                                 gboolean       python_lines)
{
  g_return_if_fail (FLAME_IS_RECORDER (self));
  self->python_lines = python_lines;
}

void
flame_recorder_set_capture_output (FlameRecorder *self,
                                   gboolean       capture)
{
  self->capture_output = capture;
}

void
flame_recorder_set_output_path (FlameRecorder *self,
                                const char    *path)
{
  g_free (self->output_path);
  self->output_path = g_strdup (path);
}

/**
 * flame_recorder_set_memory:
 * @mean: the mean of the sampling of allocated bytes, or 0 to record
 *   CPU time (the default)
 *
 * Records allocations instead of CPU time: the program runs with the
 * memory build of the sampler, and the profile has four metrics
 * (FLAME_RECORDER_METRIC_*): allocated bytes, allocations, live bytes
 * at the peak and leaked bytes.
 */
void
flame_recorder_set_memory (FlameRecorder *self,
                           guint          mean)
{
  self->memory_mean = mean;
}

/**
 * flame_recorder_set_host_sampler:
 * @host_path: the sampler as the host's loader sees it, or %NULL
 *
 * Runs the command on the host through `flatpak-spawn --host` (Flatpak
 * with talk access to org.freedesktop.Flatpak), with @host_path
 * preloaded and the socket passed with --forward-fd.
 */
void
flame_recorder_set_host_sampler (FlameRecorder *self,
                                 const char    *host_path)
{
  g_free (self->host_sampler);
  self->host_sampler = g_strdup (host_path);
  /* with --filesystem=host-os:ro the host's /usr is there, for the
   * checks before launch and for the symbols */
  g_clear_pointer (&self->host_root, g_free);
  if (host_path != NULL)
    {
      const char *root = g_getenv ("FLAMEDIFF_HOST_ROOT");

      if (root == NULL || *root == '\0')
        root = "/run/host";
      if (g_file_test (root, G_FILE_TEST_IS_DIR))
        self->host_root = g_strdup (root);
    }
}

const char *
flame_recorder_get_output_path (FlameRecorder *self)
{
  return self->output_path;
}

gdouble
flame_recorder_get_elapsed (FlameRecorder *self)
{
  return self->elapsed;
}

guint64
flame_recorder_get_samples (FlameRecorder *self)
{
  return self->samples;
}

guint64
flame_recorder_get_lost (FlameRecorder *self)
{
  return self->lost;
}

int
flame_recorder_get_wait_status (FlameRecorder *self)
{
  return self->wait_status;
}

gdouble
flame_recorder_get_effective_hz (FlameRecorder *self)
{
  return self->effective_hz;
}

/**
 * flame_recorder_stop:
 *
 * Ends the recording: SIGINT to the command, SIGKILL after the grace
 * period. What was recorded is kept. Callable from any thread.
 */
void
flame_recorder_stop (FlameRecorder *self)
{
  g_mutex_lock (&self->lock);
  self->stop_requested = TRUE;
  g_mutex_unlock (&self->lock);
}

/* ---- progress, published on the caller's context ---- */

static gboolean
publish (gpointer data)
{
  FlameRecorder *self = data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&self->lock);
  self->notify_pending = FALSE;
  self->elapsed = self->start_us == 0 ? 0 :
                  ((self->end_us != 0 ? self->end_us : now) - self->start_us) / 1e6;
  self->samples = self->live_samples;
  self->lost = self->live_lost;
  self->recording = self->running;
  g_mutex_unlock (&self->lock);

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_ELAPSED]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SAMPLES]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_LOST]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RECORDING]);
  g_object_thaw_notify (G_OBJECT (self));
  return G_SOURCE_REMOVE;
}

static void
schedule_publish (FlameRecorder *self)
{
  gboolean schedule;

  if (self->context == NULL)
    {
      /* synchronous recording: we are the caller's thread */
      publish (g_object_ref (self));
      g_object_unref (self);
      return;
    }
  g_mutex_lock (&self->lock);
  schedule = !self->notify_pending;
  self->notify_pending = TRUE;
  g_mutex_unlock (&self->lock);
  if (schedule)
    g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, publish,
                                g_object_ref (self), g_object_unref);
}

typedef struct
{
  FlameRecorder *self;
  char          *text;
} Output;

static gboolean
emit_output (gpointer data)
{
  Output *o = data;

  g_signal_emit (o->self, signals[SIGNAL_OUTPUT], 0, o->text);
  g_object_unref (o->self);
  g_free (o->text);
  g_free (o);
  return G_SOURCE_REMOVE;
}

/* ---- records ---- */

static Image *
image_for (FlameRecorder *self,
           gint32         pid)
{
  Image *img = g_hash_table_lookup (self->current, GINT_TO_POINTER (pid));

  if (img == NULL)
    {
      /* records of a process whose hello was lost */
      img = image_new (self, pid);
      g_ptr_array_add (img->epochs, epoch_new ());
    }
  return img;
}

static void
on_hello (FlameRecorder *self,
          const guint8  *buf,
          gsize          len)
{
  const FlameRecHello *h = (const FlameRecHello *) buf;
  Image *parent = NULL;
  Image *img;

  if (h->h.flags & FLAME_HELLO_FORKED)
    parent = g_hash_table_lookup (self->current, GINT_TO_POINTER (h->ppid));
  img = image_new (self, h->h.pid);
  img->ppid = h->ppid;
  img->comm = g_strndup (h->comm, sizeof h->comm);
  img->exe = len > sizeof *h ? g_strndup ((const char *) buf + sizeof *h, len - sizeof *h) : NULL;
  img->disabled = (h->h.flags & FLAME_HELLO_DISABLED) != 0;
  img->forked = (h->h.flags & FLAME_HELLO_FORKED) != 0;
  /* a fork child starts with its parent's modules */
  g_ptr_array_add (img->epochs,
                   epoch_copy (parent != NULL && parent->epochs->len > 0 ?
                               g_ptr_array_index (parent->epochs, parent->epochs->len - 1) : NULL));
}

static void
on_module (FlameRecorder *self,
           const guint8  *buf,
           gsize          len)
{
  const FlameRecModule *r = (const FlameRecModule *) buf;
  Image *img = image_for (self, r->h.pid);
  Epoch *epoch = g_ptr_array_index (img->epochs, img->epochs->len - 1);
  Module m = { 0 };
  gboolean overlap = FALSE;

  if (sizeof *r + r->build_id_len + r->path_len > len)
    return;
  m.path = g_strndup ((const char *) (r + 1) + r->build_id_len, r->path_len);
  m.base = r->base;
  m.lo = r->lo;
  m.hi = r->hi;
  if (r->build_id_len > 0)
    m.build_id = g_bytes_new (r + 1, r->build_id_len);

  for (guint i = 0; i < epoch->modules->len; i++)
    {
      Module *o = &g_array_index (epoch->modules, Module, i);

      if (m.lo < o->hi && o->lo < m.hi)
        overlap = TRUE;
    }
  if (overlap)
    {
      /* Something was unloaded and this took its place: samples taken
       * from now on belong to a new set of modules. */
      Epoch *next = epoch_new ();

      for (guint i = 0; i < epoch->modules->len; i++)
        {
          Module o = g_array_index (epoch->modules, Module, i);

          if (m.lo < o.hi && o.lo < m.hi)
            continue;
          o.path = g_strdup (o.path);
          if (o.build_id != NULL)
            g_bytes_ref (o.build_id);
          g_array_append_val (next->modules, o);
        }
      g_ptr_array_add (img->epochs, next);
      epoch = next;
    }
  g_array_append_val (epoch->modules, m);
}

static void
on_sample (FlameRecorder *self,
           const guint8  *buf,
           gsize          len)
{
  const FlameRecSample *s = (const FlameRecSample *) buf;
  Image *img;
  guint32 epoch;

  if (s->n_frames > FLAME_SAMPLER_MAX_FRAMES || s->n_py > FLAME_PY_MAX_FRAMES ||
      sizeof *s + (s->n_frames + s->n_py) * 8 > len)
    return;
  img = image_for (self, s->h.pid);
  epoch = img->epochs->len - 1;
  g_byte_array_append (img->samples, (const guint8 *) &epoch, sizeof epoch);
  g_byte_array_append (img->samples, buf, sizeof *s + (s->n_frames + s->n_py) * 8);
  img->n_samples++;
  if (s->lost > img->lost)
    img->lost = s->lost;
}

/* memory mode: the allocation goes into the samples like a CPU sample
 * of no weight (its Python frames placed as a sample's, in
 * add_image_samples), its size and order into img->mem */
static void
on_alloc (FlameRecorder *self,
          const guint8  *buf,
          gsize          len)
{
  const FlameRecAlloc *a = (const FlameRecAlloc *) buf;
  FlameRecSample s = { 0 };
  MemEvent ev = { 0 };
  Image *img;
  guint32 epoch;

  if (a->n_frames > FLAME_SAMPLER_MAX_FRAMES || a->n_py > FLAME_PY_MAX_FRAMES ||
      sizeof *a + (a->n_frames + a->n_py) * 8 > len || a->seq == 0)
    return;
  img = image_for (self, a->h.pid);
  epoch = img->epochs->len - 1;
  s.h = a->h;
  s.n_frames = a->n_frames;
  s.n_py = a->n_py;
  s.lost = a->lost;
  g_byte_array_append (img->samples, (const guint8 *) &epoch, sizeof epoch);
  g_byte_array_append (img->samples, (const guint8 *) &s, sizeof s);
  g_byte_array_append (img->samples, buf + sizeof *a, (a->n_frames + a->n_py) * 8);
  ev.seq = a->seq;
  ev.size = a->size;
  ev.sample = img->n_samples++;
  g_array_append_val (img->mem, ev);
  if (a->lost > img->lost)
    img->lost = a->lost;
}

/* A process ends: what it lost, and the periods its timer drew */
static void
on_exit_record (FlameRecorder *self,
                const guint8  *buf,
                gsize          len)
{
  const FlameRecHeader *h = (const FlameRecHeader *) buf;
  Image *img = image_for (self, h->pid);
  FlameRecExit e = { 0 };

  memcpy (&e, buf, MIN (len, sizeof e));
  img->exited = TRUE;
  img->lost = MAX (img->lost, e.lost);
  if (len >= sizeof e && e.periods > 0)
    {
      img->periods = e.periods;
      img->period_sum_ns = e.period_sum_ns;
      img->period_min_ns = e.period_min_ns;
      img->period_max_ns = e.period_max_ns;
    }
}

/* A runtime the process runs (CPython): named once in the metadata, and
 * a note when its frames cannot be read */
static void
on_runtime (FlameRecorder *self,
            const guint8  *buf,
            gsize          len)
{
  const FlameRecHeader *h = (const FlameRecHeader *) buf;
  g_autofree char *text = g_utf8_make_valid ((const char *) buf + sizeof (FlameRecRuntime),
                                             len - sizeof (FlameRecRuntime));
  gboolean seen = FALSE;

  for (guint i = 0; i < self->runtimes->len && !seen; i++)
    seen = strcmp (g_ptr_array_index (self->runtimes, i), text) == 0;
  if (!seen)
    g_ptr_array_add (self->runtimes, g_strdup (text));
  if (h->flags & FLAME_RUNTIME_UNSUPPORTED)
    g_ptr_array_add (self->notes, g_strdup_printf ("process %d: %s: native stacks only",
                                                   h->pid, text));
}

/* Memory mode's records other than allocations: a free, the totals */
static void
on_memory_record (FlameRecorder *self,
                  const guint8  *buf,
                  gsize          len)
{
  const FlameRecHeader *h = (const FlameRecHeader *) buf;

  if (h->type == FLAME_REC_FREE && len >= sizeof (FlameRecFree))
    {
      const FlameRecFree *f = (const FlameRecFree *) buf;
      MemEvent ev = { f->seq, f->alloc_seq, 0, 0 };

      g_array_append_val (image_for (self, h->pid)->mem, ev);
    }
  else if (h->type == FLAME_REC_MEMSTAT && len >= sizeof (FlameRecMemStat))
    {
      Image *img = image_for (self, h->pid);

      memcpy (&img->stat, buf, sizeof img->stat);
      img->have_stat = TRUE;
    }
}

static void
handle_record (FlameRecorder *self,
               const guint8  *buf,
               gsize          len)
{
  const FlameRecHeader *h = (const FlameRecHeader *) buf;

  if (len < sizeof *h || h->magic != FLAME_SAMPLER_MAGIC)
    return;
  switch (h->type)
    {
    case FLAME_REC_HELLO:
      if (len >= sizeof (FlameRecHello))
        on_hello (self, buf, len);
      break;
    case FLAME_REC_MODULE:
      if (len >= sizeof (FlameRecModule))
        on_module (self, buf, len);
      break;
    case FLAME_REC_SAMPLE:
      if (len >= sizeof (FlameRecSample))
        on_sample (self, buf, len);
      break;
    case FLAME_REC_EXIT:
      if (len >= FLAME_REC_EXIT_V1_SIZE)
        on_exit_record (self, buf, len);
      break;
    case FLAME_REC_ALLOC:
      if (len >= sizeof (FlameRecAlloc))
        on_alloc (self, buf, len);
      break;
    case FLAME_REC_FREE:
    case FLAME_REC_MEMSTAT:
      on_memory_record (self, buf, len);
      break;
    case FLAME_REC_PYCODE:
      flame_py_codes_add (image_for (self, h->pid)->py, buf, len);
      break;
    case FLAME_REC_RUNTIME:
      if (len >= sizeof (FlameRecRuntime))
        on_runtime (self, buf, len);
      break;
    case FLAME_REC_NOTE:
      {
        /* a note is its header and its text */
        g_autofree char *text = g_strndup ((const char *) buf + sizeof (FlameRecNote),
                                           len - sizeof (FlameRecNote));

        g_ptr_array_add (self->notes, g_strdup_printf ("process %d: %s", h->pid, text));
      }
      break;
    default:
      break;
    }
}

static void
update_live_counts (FlameRecorder *self)
{
  guint64 samples = 0, lost = 0;

  for (guint i = 0; i < self->images->len; i++)
    {
      Image *img = g_ptr_array_index (self->images, i);

      samples += img->n_samples;
      lost += img->lost;
    }
  g_mutex_lock (&self->lock);
  self->live_samples = samples;
  self->live_lost = lost;
  g_mutex_unlock (&self->lock);
}

/* ---- the spool: OUTPUT.spool, raw records as they arrive (flame-spool.c) ---- */

static void
spool_append (FlameRecorder *self,
              const void    *data,
              gsize          len)
{
  g_autoptr(GError) local_error = NULL;

  if (!flame_spool_writer_append (self->spool_writer, data, len, &local_error))
    {
      /* disk full or the like: the recording in memory goes on */
      g_ptr_array_add (self->notes, g_strdup_printf ("the spool file stopped at a write error: %s",
                                                     local_error->message));
      g_clear_pointer (&self->spool_writer, flame_spool_writer_free);
    }
}

static void
spool_open (FlameRecorder *self,
            GDateTime     *started)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *dir = g_path_get_dirname (self->output_path);
  g_autofree char *header = NULL;
  g_autofree char *started_s = g_date_time_format_iso8601 (started);
  gsize len;

  if (!self->spool)
    return;
  g_key_file_set_string_list (kf, "recording", "argv", (const char * const *) self->argv,
                              g_strv_length (self->argv));
  if (self->cwd != NULL)
    g_key_file_set_string (kf, "recording", "cwd", self->cwd);
  g_key_file_set_integer (kf, "recording", "hz", self->hz);
  g_key_file_set_string (kf, "recording", "start-time", started_s);
  g_key_file_set_int64 (kf, "recording", "start-realtime-us", g_get_real_time ());
  g_key_file_set_string (kf, "recording", "output", self->output_path);
  if (self->host_root != NULL)
    g_key_file_set_string (kf, "recording", "host-root", self->host_root);
  if (self->memory_mean > 0)
    g_key_file_set_integer (kf, "recording", "memory-mean", (gint) self->memory_mean);
  header = g_key_file_to_data (kf, &len, NULL);

  g_mkdir_with_parents (dir, 0755);
  g_free (self->spool_path);
  self->spool_path = g_strconcat (self->output_path, ".spool", NULL);
  self->spool_writer = flame_spool_writer_new (self->spool_path);
  if (self->spool_writer == NULL)
    return;
  spool_append (self, header, len);
  flame_spool_writer_sync (self->spool_writer, TRUE);
}

static void
spool_close (FlameRecorder *self,
             gboolean       remove)
{
  g_clear_pointer (&self->spool_writer, flame_spool_writer_free);
  if (remove && self->spool_path != NULL)
    g_unlink (self->spool_path);
}

/* Reads every record waiting; FALSE at end of stream (every process that
 * held the socket is gone). */
static gboolean
drain (FlameRecorder *self,
       int            fd,
       guint8        *buf,
       gsize          size)
{
  for (;;)
    {
      gssize n = recv (fd, buf, size, MSG_DONTWAIT);

      if (n > 0)
        {
          spool_append (self, buf, n);
          handle_record (self, buf, n);
        }
      else if (n == 0)
        return FALSE;
      else if (errno == EINTR)
        continue;
      else
        return TRUE;
    }
}

/* ---- the recording ---- */

static int
target_fd (void)
{
  struct rlimit rl;

  /* high, out of the way of descriptors the program opens itself */
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 1024)
    return MAX ((int) rl.rlim_cur - 1, 3);
  return 1000;
}

static gboolean
take_stop_request (FlameRecorder *self,
                   GCancellable  *cancellable)
{
  gboolean stop;

  g_mutex_lock (&self->lock);
  stop = self->stop_requested;
  g_mutex_unlock (&self->lock);
  return stop || g_cancellable_is_cancelled (cancellable);
}

/* g_strv_builder_take is GLib 2.80 */
static void
strv_take (GStrvBuilder *b,
           char         *s)
{
  g_strv_builder_add (b, s);
  g_free (s);
}

/* The program on the host: flatpak-spawn --host, its environment in
 * --env; the descriptor keeps its number (--forward-fd) and the socket
 * its inode, so the sampler's checks hold on the host */
static GSubprocess *
spawn_host (FlameRecorder       *self,
            GSubprocessLauncher *launcher,
            int                  child_fd,
            int                  fd_number,
            guint64              ino,
            GError             **error)
{
  GStrvBuilder *env;
  g_auto(GStrv) env_v = NULL;
  g_auto(GStrv) argv = NULL;

  /* a CPU build would take the memory setting for CPU sampling */
  if (self->memory_mean > 0 && !g_str_has_suffix (self->host_sampler, "/" MEMORY_HOST_SAMPLER_NAME))
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "memory recordings of programs on the host need %s, not %s",
                   MEMORY_HOST_SAMPLER_NAME, self->host_sampler);
      return NULL;
    }
  env = g_strv_builder_new ();
  for (guint i = 0; i < self->env->len; i++)
    g_strv_builder_add (env, g_ptr_array_index (self->env, i));
  strv_take (env, g_strdup_printf ("LD_PRELOAD=%s", self->host_sampler));
  strv_take (env, g_strdup_printf ("%s=%d", FLAME_SAMPLER_ENV_FD, fd_number));
  strv_take (env, g_strdup_printf ("%s=%" G_GUINT64_FORMAT, FLAME_SAMPLER_ENV_INO, ino));
  strv_take (env, g_strdup_printf ("%s=%u", FLAME_SAMPLER_ENV_HZ, self->hz));
  strv_take (env, g_strdup_printf ("%s=%s", FLAME_SAMPLER_ENV_CHILDREN,
                                   self->follow_children ? "1" : "0"));
  if (self->memory_mean > 0)
    strv_take (env, g_strdup_printf ("%s=%u", FLAME_SAMPLER_ENV_MEMORY, self->memory_mean));
  env_v = g_strv_builder_end (env);
  g_strv_builder_unref (env);
  argv = flame_sandbox_host_argv ((const char * const *) self->argv, self->cwd,
                                  (const char * const *) env_v, fd_number);
  g_subprocess_launcher_take_fd (launcher, child_fd, fd_number);
  return g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, error);
}

/* The program here, @sampler preloaded */
static GSubprocess *
spawn_local (FlameRecorder       *self,
             GSubprocessLauncher *launcher,
             const char          *sampler,
             int                  child_fd,
             int                  fd_number,
             guint64              ino,
             GError             **error)
{
  const char *old_preload, *old_node;
  g_autofree char *preload = NULL;
  g_autofree char *node = NULL;
  char num[32];

  old_node = g_subprocess_launcher_getenv (launcher, "NODE_OPTIONS");
  node = old_node != NULL && *old_node ?
         g_strdup_printf ("%s %s", old_node, NODE_JIT_OPTIONS) : g_strdup (NODE_JIT_OPTIONS);
  g_subprocess_launcher_setenv (launcher, "NODE_OPTIONS", node, TRUE);
  old_preload = g_subprocess_launcher_getenv (launcher, "LD_PRELOAD");
  preload = old_preload != NULL && *old_preload ?
            g_strdup_printf ("%s:%s", sampler, old_preload) : g_strdup (sampler);
  g_subprocess_launcher_setenv (launcher, "LD_PRELOAD", preload, TRUE);
  g_snprintf (num, sizeof num, "%d", fd_number);
  g_subprocess_launcher_setenv (launcher, FLAME_SAMPLER_ENV_FD, num, TRUE);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, ino);
  g_subprocess_launcher_setenv (launcher, FLAME_SAMPLER_ENV_INO, num, TRUE);
  g_snprintf (num, sizeof num, "%u", self->hz);
  g_subprocess_launcher_setenv (launcher, FLAME_SAMPLER_ENV_HZ, num, TRUE);
  g_subprocess_launcher_setenv (launcher, FLAME_SAMPLER_ENV_CHILDREN,
                                self->follow_children ? "1" : "0", TRUE);
  g_subprocess_launcher_unsetenv (launcher, FLAME_SAMPLER_ENV_ROOT);
  if (self->memory_mean > 0)
    {
      g_snprintf (num, sizeof num, "%u", self->memory_mean);
      g_subprocess_launcher_setenv (launcher, FLAME_SAMPLER_ENV_MEMORY, num, TRUE);
    }
  else
    g_subprocess_launcher_unsetenv (launcher, FLAME_SAMPLER_ENV_MEMORY);
  g_subprocess_launcher_take_fd (launcher, child_fd, fd_number);

  return g_subprocess_launcher_spawnv (launcher, (const char * const *) self->argv, error);
}

static GSubprocess *
spawn (FlameRecorder  *self,
       int             child_fd,
       int             fd_number,
       GError        **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autofree char *sampler = NULL;
  struct stat st;

  /* in the sandbox (or without one): the memory build beside the sampler
   * for memory recordings */
  if (self->host_sampler == NULL)
    {
      sampler = self->memory_mean > 0 ?
                _flame_recorder_find_sampler_build (MEMORY_SAMPLER_NAME, "memory sampler", error) :
                flame_recorder_find_sampler (error);
      if (sampler == NULL)
        return NULL;
    }
  if (fstat (child_fd, &st) != 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED,
                   "socket: %s", g_strerror (errno));
      return NULL;
    }

  launcher = g_subprocess_launcher_new (self->capture_output ? G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                 G_SUBPROCESS_FLAGS_STDERR_MERGE
                                                             : G_SUBPROCESS_FLAGS_NONE);
  if (self->cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, self->cwd);
  for (guint i = 0; i < self->env->len; i++)
    {
      const char *kv = g_ptr_array_index (self->env, i);
      const char *eq = strchr (kv, '=');
      g_autofree char *name = g_strndup (kv, eq - kv);

      g_subprocess_launcher_setenv (launcher, name, eq + 1, TRUE);
    }
  if (self->host_sampler != NULL)
    return spawn_host (self, launcher, child_fd, fd_number, (guint64) st.st_ino, error);
  return spawn_local (self, launcher, sampler, child_fd, fd_number, (guint64) st.st_ino, error);
}

/* The command can be recorded: there is one, and it is no static or
 * set-user-ID program (as far as the sandbox sees the host's, for one
 * that runs there) */
static gboolean
check_command (FlameRecorder  *self,
               GError        **error)
{
  if (self->argv == NULL || self->argv[0] == NULL)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NO_COMMAND,
                   "no command to record");
      return FALSE;
    }
  if (self->host_sampler == NULL)
    return flame_recorder_check_program (self->argv[0], self->cwd, NULL, error);
  return self->host_root == NULL ||
         flame_recorder_check_host_program (self->host_root, self->argv[0], self->cwd, error);
}

/* The socket pair the records come through: fds[0] ours, fds[1] the
 * program's */
static gboolean
open_socket (int      fds[2],
             GError **error)
{
  int size = 4 << 20;

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED,
                   "socketpair: %s", g_strerror (errno));
      return FALSE;
    }
  /* as much room as the kernel grants: a slow reader costs lost samples,
   * never a stalled program */
  setsockopt (fds[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  setsockopt (fds[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  return TRUE;
}

/* The recording runs from now on, or (@running FALSE) ended at @end_us */
static void
set_running (FlameRecorder *self,
             gboolean       running,
             gint64         end_us)
{
  g_mutex_lock (&self->lock);
  if (running)
    {
      self->start_us = g_get_monotonic_time ();
      self->start_wall_s = g_get_real_time () / G_USEC_PER_SEC;
    }
  else if (end_us != 0)
    self->end_us = end_us;
  self->running = running;
  g_mutex_unlock (&self->lock);
}

/* What the program printed, to the "output" signal; returns the
 * descriptor, or -1 once it is at its end */
static int
forward_output (FlameRecorder *self,
                int            out_fd)
{
  char text[4096];
  gssize n = read (out_fd, text, sizeof text);

  if (n > 0 && self->context != NULL)
    {
      Output *o = g_new0 (Output, 1);

      o->self = g_object_ref (self);
      o->text = g_utf8_make_valid (text, n);
      g_main_context_invoke (self->context, emit_output, o);
    }
  else if (n == 0)
    return -1;
  return out_fd;
}

/* The watch over a running command (record_run) */
typedef struct
{
  GSubprocess *proc;
  int          sock_fd;     /* our end of the socket */
  int          out_fd;      /* its output, or -1 */
  guint8      *buf;         /* RECORD_BUF_SIZE */
  gint64       exited_us;   /* 0: still running */
  gint64       sigint_us;   /* when it was asked to stop */
  gint64       last_publish;
  gboolean     killed;
  gboolean     eof;         /* every recorded process closed the socket */
} Watch;

/* A stop request: SIGINT first, SIGKILL after the grace period */
static void
stop_command (FlameRecorder *self,
              Watch         *w,
              gint64         now)
{
  if (w->sigint_us == 0)
    {
      w->sigint_us = now;
      g_subprocess_send_signal (w->proc, SIGINT);
    }
  else if (!w->killed && now - w->sigint_us > (gint64) self->grace_ms * 1000)
    {
      w->killed = TRUE;
      g_subprocess_force_exit (w->proc);
    }
}

/* One turn of the watch: records, output, the command's end, a stop
 * request, the counters; FALSE when the recording is over */
static gboolean
watch_step (FlameRecorder *self,
            Watch         *w,
            GCancellable  *cancellable)
{
  struct pollfd p[2] = {
    { .fd = w->sock_fd, .events = POLLIN },
    { .fd = w->out_fd, .events = POLLIN },
  };
  gint64 now;

  poll (p, w->out_fd >= 0 ? 2 : 1, 50);
  if (!w->eof && !drain (self, w->sock_fd, w->buf, RECORD_BUF_SIZE))
    w->eof = TRUE;
  if (w->out_fd >= 0 && (p[1].revents & (POLLIN | POLLHUP)))
    w->out_fd = forward_output (self, w->out_fd);

  now = g_get_monotonic_time ();
  flame_spool_writer_sync_due (self->spool_writer, now);
  if (w->exited_us == 0 && g_subprocess_get_identifier (w->proc) == NULL)
    {
      w->exited_us = now;
      set_running (self, FALSE, now);
    }
  if (w->exited_us == 0 && take_stop_request (self, cancellable))
    stop_command (self, w, now);
  if (now - w->last_publish > 100000 || w->exited_us != 0)
    {
      w->last_publish = now;
      update_live_counts (self);
      schedule_publish (self);
    }
  /* after the command: what its children still send, and the rest of
   * its output (the last lines a program prints are often still in the
   * pipe when the sockets close), for a while */
  return !(w->exited_us != 0 && ((w->eof && w->out_fd < 0) ||
                                 now - w->exited_us > TAIL_MS * 1000 ||
                                 take_stop_request (self, cancellable)));
}

/* What is left in the output pipe once the watch has ended, without
 * waiting for a child that keeps it open, nor reading for ever from one
 * that keeps writing (at most 64 reads: 256 KiB) */
static void
forward_rest_of_output (FlameRecorder *self,
                        Watch         *w)
{
  struct pollfd p = { .fd = w->out_fd, .events = POLLIN };

  for (guint i = 0; i < 64 && w->out_fd >= 0 && poll (&p, 1, 0) > 0 &&
                    (p.revents & (POLLIN | POLLHUP)); i++)
    {
      w->out_fd = forward_output (self, w->out_fd);
      p.fd = w->out_fd;
    }
}

/* The command has ended: its status, then the profile, written */
static FlameProfile *
finish_run (FlameRecorder  *self,
            GSubprocess    *proc,
            GDateTime      *started,
            GError        **error)
{
  g_autoptr(FlameProfile) profile = NULL;

  g_subprocess_wait (proc, NULL, NULL);
  self->wait_status = g_subprocess_get_status (proc);
  self->have_status = TRUE;

  flame_spool_writer_sync (self->spool_writer, FALSE);
  profile = _flame_recorder_build_profile (self, started);
  schedule_publish (self);
  if (!_flame_recorder_write_profile (self, profile, error))
    {
      /* the spool stays: flame_recorder_recover() can try again */
      spool_close (self, FALSE);
      return NULL;
    }
  spool_close (self, TRUE);
  return g_steal_pointer (&profile);
}

static FlameProfile *
record_run (FlameRecorder  *self,
            GCancellable   *cancellable,
            GError        **error)
{
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GDateTime) started = NULL;
  g_autofree guint8 *buf = NULL;
  Watch w = { 0 };
  int fds[2];

  if (!check_command (self, error) || !open_socket (fds, error))
    return NULL;

  started = g_date_time_new_now_local ();
  set_running (self, TRUE, 0);
  schedule_publish (self);

  if (self->output_path == NULL)
    self->output_path = _flame_recorder_unique_output_path (self->argv[0]);
  spool_open (self, started);

  /* the launcher owns fds[1] and closes it when it goes, so only the
   * recorded processes hold that end: end of stream = all gone */
  proc = spawn (self, fds[1], target_fd (), error);
  if (proc == NULL)
    {
      spool_close (self, TRUE);
      close (fds[0]);
      set_running (self, FALSE, 0);
      schedule_publish (self);
      return NULL;
    }

  buf = g_malloc (RECORD_BUF_SIZE);
  w.proc = proc;
  w.sock_fd = fds[0];
  w.out_fd = -1;
  if (self->capture_output)
    w.out_fd = g_unix_input_stream_get_fd (
      G_UNIX_INPUT_STREAM (g_subprocess_get_stdout_pipe (proc)));
  w.buf = buf;
  while (watch_step (self, &w, cancellable))
    ;
  forward_rest_of_output (self, &w);
  drain (self, fds[0], buf, RECORD_BUF_SIZE);
  close (fds[0]);
  update_live_counts (self);
  return finish_run (self, proc, started, error);
}

static void
record_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  FlameRecorder *self = source;
  GError *error = NULL;
  FlameProfile *profile;

  g_assert (FLAME_IS_RECORDER (self));
  g_assert (G_IS_TASK (task));

  profile = record_run (self, cancellable, &error);

  if (profile == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, profile, g_object_unref);
}

/**
 * flame_recorder_record_async:
 *
 * Starts the command and records it until it exits or
 * flame_recorder_stop() (or @cancellable) ends it; then symbolises and
 * writes the recording. Progress properties change on the thread-default
 * main context of the caller.
 */
void
flame_recorder_record_async (FlameRecorder       *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, flame_recorder_record_async);
  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  /* a cancelled recording still keeps and writes what it has */
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, record_thread);
}

FlameProfile *
flame_recorder_record_finish (FlameRecorder  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Synchronous, for tests and tools: no progress notifications. */
FlameProfile *
flame_recorder_record (FlameRecorder  *self,
                       GCancellable   *cancellable,
                       GError        **error)
{
  g_clear_pointer (&self->context, g_main_context_unref);
  return record_run (self, cancellable, error);
}

/* ---- recovery ---- */

/**
 * flame_recorder_recover:
 * @spool_path: a FILE.spool left behind by a recorder that did not finish
 *
 * Builds the recording from the spooled records and writes it atomically
 * to FILE (next to the spool; a spool not named *.spool gets
 * ".speedscope.json" added), then removes the spool. The output path in
 * the spool's header is never written to.
 * Fails with %G_IO_ERROR_BUSY when a running recorder still writes it.
 */
/* A recorder set up as the one that wrote the spool whose header is
 * @kf, writing next to @spool_path; NULL when the header is damaged */
static FlameRecorder *
recorder_from_spool (GKeyFile    *kf,
                     const char  *spool_path,
                     GError     **error)
{
  g_auto(GStrv) argv = g_key_file_get_string_list (kf, "recording", "argv", NULL, NULL);
  g_autofree char *header_output = g_key_file_get_string (kf, "recording", "output", NULL);
  g_autofree char *cwd = NULL;
  g_autofree char *output = NULL;
  FlameRecorder *self;
  gint64 start_real = g_key_file_get_int64 (kf, "recording", "start-realtime-us", NULL);
  gint mean = g_key_file_get_integer (kf, "recording", "memory-mean", NULL);

  if (argv == NULL || argv[0] == NULL || header_output == NULL)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_FAILED,
                   "%s: the spool's header is damaged", spool_path);
      return NULL;
    }
  cwd = g_key_file_get_string (kf, "recording", "cwd", NULL);
  self = flame_recorder_new ((const char * const *) argv);
  self->host_root = g_key_file_get_string (kf, "recording", "host-root", NULL);
  self->memory_mean = mean > 0 ? (guint) mean : 0;
  flame_recorder_set_cwd (self, cwd);
  flame_recorder_set_frequency (self, g_key_file_get_integer (kf, "recording", "hz", NULL));
  /* perf maps older than the recording are not its own; without a start
   * time, none are */
  self->start_wall_s = start_real > 0 ? start_real / G_USEC_PER_SEC : G_MAXINT64;
  /* next to the spool, which is OUTPUT.spool: the recordings folder may
   * have been moved or copied since. Never where the header says: the
   * spool is a file read back from disk, and its header can name any
   * path. A spool by another name gets ".speedscope.json" added. */
  if (g_str_has_suffix (spool_path, ".spool"))
    output = g_strndup (spool_path, strlen (spool_path) - strlen (".spool"));
  else
    output = g_strconcat (spool_path, ".speedscope.json", NULL);
  flame_recorder_set_output_path (self, output);
  return self;
}

/* Every record of the spool, as if received */
static void
replay_spool (FlameRecorder    *self,
              FlameSpoolReader *spool)
{
  g_autofree guint8 *buf = g_malloc (RECORD_BUF_SIZE);
  const guint8 *data;
  gsize len;

  /* A record sits at any offset of the file, and the structs want their
   * alignment: each is copied into the receive buffer first. Longer ones
   * were never received, so never spooled. */
  while (flame_spool_reader_next (spool, &data, &len))
    {
      if (len > RECORD_BUF_SIZE)
        continue;
      memcpy (buf, data, len);
      handle_record (self, buf, len);
    }
}

/* The last write to the spool (@mtime, seconds) is as near to the end
 * as we know; with a start time after it (the clock was set back) or
 * before 1970 (damage, and the subtraction could overflow) the duration
 * is 0 */
static void
set_recovered_duration (FlameRecorder *self,
                        gint64         start_real,
                        gint64         mtime)
{
  self->start_us = 1;
  self->end_us = 1;
  if (start_real > 0 && mtime > 0 && mtime < G_MAXINT64 / G_USEC_PER_SEC &&
      mtime * G_USEC_PER_SEC > start_real)
    self->end_us += mtime * G_USEC_PER_SEC - start_real;
}

/**
 * flame_recorder_recover:
 * @spool_path: a FILE.spool left behind by a recorder that did not finish
 *
 * Builds the recording from the spooled records and writes it atomically
 * to FILE (next to the spool; a spool not named *.spool gets
 * ".speedscope.json" added), then removes the spool. The output path in
 * the spool's header is never written to.
 * Fails with %G_IO_ERROR_BUSY when a running recorder still writes it.
 */
FlameProfile *
flame_recorder_recover (const char  *spool_path,
                        GError     **error)
{
  g_autoptr(FlameSpoolReader) spool = NULL;
  g_autoptr(FlameRecorder) self = NULL;
  g_autoptr(GDateTime) started = NULL;
  g_autoptr(FlameProfile) profile = NULL;
  g_autofree char *start_s = NULL;
  GKeyFile *kf;
  gint64 start_real;

  spool = flame_spool_reader_new (spool_path, error);
  if (spool == NULL)
    return NULL;
  kf = flame_spool_reader_get_header (spool);
  self = recorder_from_spool (kf, spool_path, error);
  if (self == NULL)
    return NULL;
  start_s = g_key_file_get_string (kf, "recording", "start-time", NULL);
  start_real = g_key_file_get_int64 (kf, "recording", "start-realtime-us", NULL);
  replay_spool (self, spool);
  set_recovered_duration (self, start_real, flame_spool_reader_get_mtime (spool));
  g_clear_pointer (&spool, flame_spool_reader_free);

  started = start_s ? g_date_time_new_from_iso8601 (start_s, NULL) : NULL;
  if (started == NULL)
    started = g_date_time_new_now_local ();
  g_ptr_array_add (self->notes, g_strdup ("recovered from the spool of a recording that was "
                                          "interrupted: the end and the exit status are unknown"));
  update_live_counts (self);
  profile = _flame_recorder_build_profile (self, started);
  if (!_flame_recorder_write_profile (self, profile, error))
    return NULL;
  g_unlink (spool_path);
  return g_steal_pointer (&profile);
}

/**
 * flame_recorder_find_spools:
 * @dir: a recordings folder
 *
 * The spools in @dir that no running recorder holds: recordings
 * interrupted by a crash or a kill, for flame_recorder_recover().
 */
GPtrArray *
flame_recorder_find_spools (const char *dir)
{
  return flame_spool_find (dir);
}
