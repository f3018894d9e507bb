/* flame-recorder.c: record a command with libflamediff-sampler.so.
 *
 * The whole recording runs in one worker thread (GTask): spawn with the
 * sampler preloaded and one end of a SOCK_SEQPACKET pair at a fixed
 * descriptor, read records while the program runs, stop it on request
 * (SIGINT, then SIGKILL after a grace period), then symbolise every
 * process image with libdwfl and write speedscope JSON atomically. The
 * counters the UI shows (elapsed, samples, lost) are published to the
 * caller's main context as properties.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <elf.h>
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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "flame-perfmap.h"
#include "flame-pyframes.h"
#include "flame-recorder.h"
#include "flame-sandbox.h"
#include "flame-sampler-protocol.h"
#include "flame-speedscope.h"
#include "flame-spool.h"
#include "flame-symbolizer.h"

#define SAMPLER_NAME "libflamediff-sampler.so"
/* the same sampler unwinding with libgcc: only libc and libgcc_s, for
 * programs on a host that may not have libunwind (Flatpak) */
#define HOST_SAMPLER_NAME "libflamediff-sampler-host.so"
/* the same with the allocator interposed: memory recordings */
#define MEMORY_SAMPLER_NAME "libflamediff-sampler-memory.so"
/* and both: memory recordings of programs on the host */
#define MEMORY_HOST_SAMPLER_NAME "libflamediff-sampler-memory-host.so"
#define SAMPLER_PREFIX "libflamediff-sampler"
#define DEFAULT_GRACE_MS 2000
/* what node needs for its JIT functions to be named: a perf map of its
 * compiled functions, and interpreted functions on the native stack as
 * their own frames (a copy of the interpreter's entry per function) */
#define NODE_JIT_OPTIONS "--perf-basic-prof-only-functions --interpreted-frames-native-stack"
#define TAIL_MS 1000   /* reading after the command exits: its children */
/* the receive buffer: no record is longer, in the socket or the spool */
#define RECORD_BUF_SIZE (FLAME_SAMPLER_MAX_RECORD * 8)

G_DEFINE_QUARK (flame-recorder-error-quark, flame_recorder_error)

/* ---- what the sampler sent ---- */

typedef struct
{
  char   *path;
  guint64 base, lo, hi;
  GBytes *build_id;
} Module;

typedef struct
{
  GArray          *modules;  /* Module */
  FlameSymbolizer *sym;
} Epoch;

/* One program image in one process: a new one starts at each exec */
typedef struct
{
  gint32     pid, ppid;
  char      *comm;
  char      *exe;
  gboolean   disabled;
  gboolean   forked;
  gboolean   exited;     /* sent its exit record */
  guint32    lost;
  guint64    n_samples;
  GPtrArray *epochs;     /* Epoch: a new one when a module replaces another */
  GByteArray *samples;   /* u32 epoch, then the FlameRecSample with its IPs and Python frames */
  FlamePyCodes *py;      /* the Python code objects it sent */
  GArray    *mem;        /* MemEvent: memory mode's sampled allocations and frees */
  FlameRecMemStat stat;  /* memory mode: the exact totals, if it sent them */
  gboolean   have_stat;
  guint64    periods;    /* the timer periods it drew (jitter), from its exit record */
  guint64    period_sum_ns, period_min_ns, period_max_ns;
} Image;

/* A sampled allocation (alloc_seq 0; @sample: its sample's index in the
 * image) or the free of one */
typedef struct
{
  guint64 seq;
  guint64 alloc_seq;
  guint64 size;
  guint64 sample;
} MemEvent;

struct _FlameRecorder
{
  GObject parent_instance;

  /* settings: fixed once recording starts */
  char     **argv;
  char      *cwd;
  GPtrArray *env;        /* "NAME=value" */
  guint      hz;
  gboolean   follow_children;
  gboolean   python_only;
  gboolean   python_lines;
  gboolean   capture_output;
  guint      grace_ms;
  char      *output_path;
  char      *host_sampler;  /* set: run through flatpak-spawn --host */
  char      *host_root;     /* where the host's files are seen, or NULL */
  gboolean   spool;
  guint      memory_mean;   /* bytes; 0: CPU time, not memory */

  /* the raw records, on disk while they arrive (worker only) */
  char      *spool_path;
  FlameSpoolWriter *spool_writer;

  /* shared with the worker */
  GMutex        lock;
  gboolean      stop_requested;
  GMainContext *context;
  gint64        start_us;
  gint64        start_wall_s;  /* for the age of perf maps */
  gint64        end_us;
  guint64       live_samples;
  guint64       live_lost;
  gboolean      running;
  gboolean      notify_pending;

  /* published on the caller's context */
  gdouble  elapsed;
  guint64  samples;
  guint64  lost;
  gboolean recording;

  /* worker only, readable after the recording */
  GHashTable *current;   /* pid → Image */
  GPtrArray  *images;
  GPtrArray  *notes;
  GPtrArray  *runtimes;  /* "CPython 3.11.2", once each */
  GPtrArray  *jit_maps;  /* "node[123]: /tmp/perf-123.map (456 functions)" */
  int         wait_status;
  gboolean    have_status;
  gdouble     effective_hz;
};

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

/* ---- before launch ---- */

char *
flame_recorder_default_dir (void)
{
  return g_build_filename (g_get_user_data_dir (), "flamediff", "recordings", NULL);
}

/**
 * flame_recorder_find_sampler:
 *
 * $FLAMEDIFF_SAMPLER (tests, uninstalled runs), then next to the running
 * program in a build tree (src/cli or src/app → src/sampler), then the
 * installed copy in $libdir/flamediff.
 */
char *
flame_recorder_find_sampler (GError **error)
{
  const char *env = g_getenv ("FLAMEDIFF_SAMPLER");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  char *path;

  if (env != NULL && *env != '\0')
    {
      if (g_file_test (env, G_FILE_TEST_IS_REGULAR))
        return g_canonicalize_filename (env, NULL);
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "FLAMEDIFF_SAMPLER names %s, which does not exist", env);
      return NULL;
    }
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);

      path = g_build_filename (dir, "..", "sampler", SAMPLER_NAME, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          char *canon = g_canonicalize_filename (path, NULL);

          g_free (path);
          return canon;
        }
      g_free (path);
    }
  path = g_build_filename (FLAMEDIFF_SAMPLER_DIR, SAMPLER_NAME, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
               "the sampler %s is not installed (looked in %s)", SAMPLER_NAME,
               FLAMEDIFF_SAMPLER_DIR);
  g_free (path);
  return NULL;
}

/* Another build of the sampler, @name, next to the one
 * flame_recorder_find_sampler() finds; @what names it in the error */
static char *
find_sampler_build (const char  *name,
                    const char  *what,
                    GError     **error)
{
  g_autofree char *sampler = flame_recorder_find_sampler (error);
  g_autofree char *dir = NULL;
  char *path;

  if (sampler == NULL)
    return NULL;
  dir = g_path_get_dirname (sampler);
  path = g_build_filename (dir, name, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
               "the %s %s is not installed", what, path);
  g_free (path);
  return NULL;
}

/**
 * flame_recorder_find_host_sampler:
 * @memory: the build for memory recordings (the allocator interposed)
 *
 * The libgcc-unwinding build of the sampler, next to the one
 * flame_recorder_find_sampler() finds: what a program outside the
 * sandbox can preload.
 */
char *
flame_recorder_find_host_sampler (gboolean   memory,
                                  GError   **error)
{
  return memory ? find_sampler_build (MEMORY_HOST_SAMPLER_NAME,
                                      "memory sampler for host programs", error)
                : find_sampler_build (HOST_SAMPLER_NAME, "sampler for host programs", error);
}

/**
 * flame_recorder_use_host:
 * @info: the sandbox Flamediff runs in
 *
 * Makes the recording run on the host through `flatpak-spawn --host`:
 * the host build of the sampler that fits it (CPU time, or memory when
 * flame_recorder_set_memory() was called before) is copied where the
 * host's loader finds it (flame_sandbox_export_sampler()) and preloaded
 * there (flame_recorder_set_host_sampler()).
 */
gboolean
flame_recorder_use_host (FlameRecorder           *self,
                         const FlameSandboxInfo  *info,
                         GError                 **error)
{
  g_autofree char *sampler = flame_recorder_find_host_sampler (self->memory_mean > 0, error);
  g_autofree char *host = NULL;

  if (sampler == NULL || !flame_sandbox_export_sampler (info, sampler, &host, error))
    return FALSE;
  flame_recorder_set_host_sampler (self, host);
  return TRUE;
}

/* Neither set-user-ID nor set-group-ID, nor with file capabilities:
 * the dynamic loader would ignore LD_PRELOAD */
static gboolean
check_mode (const char  *path,
            const char  *shown,
            GError     **error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "%s: %s", shown, g_strerror (errno));
      return FALSE;
    }
  if (st.st_mode & (S_ISUID | S_ISGID))
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "%s is set-user-ID or set-group-ID: the dynamic loader ignores "
                   "LD_PRELOAD for it, so it cannot be recorded", shown);
      return FALSE;
    }
  if (getxattr (path, "security.capability", NULL, 0) > 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "%s has file capabilities: the dynamic loader ignores "
                   "LD_PRELOAD for it, so it cannot be recorded", shown);
      return FALSE;
    }
  return TRUE;
}

/* A 64-bit ELF file without an interpreter (PT_INTERP), judging by its
 * first @n bytes at @buf; headers beyond them are left to the loader */
static gboolean
elf_is_static (const guint8 *buf,
               gssize        n)
{
  Elf64_Ehdr eh;

  if (n < (gssize) sizeof eh || memcmp (buf, ELFMAG, SELFMAG) != 0 || buf[EI_CLASS] != ELFCLASS64)
    return FALSE;
  memcpy (&eh, buf, sizeof eh);
  /* headers out of reach (no sum that could wrap): let the loader judge */
  if (eh.e_phoff > (guint64) n ||
      (guint64) eh.e_phnum * sizeof (Elf64_Phdr) > (guint64) n - eh.e_phoff)
    return FALSE;
  for (guint i = 0; i < eh.e_phnum; i++)
    {
      Elf64_Phdr ph;

      memcpy (&ph, buf + eh.e_phoff + i * sizeof ph, sizeof ph);
      if (ph.p_type == PT_INTERP)
        return FALSE;
    }
  return TRUE;
}

/* The interpreter of the script whose first @n bytes are at @buf (n > 2,
 * "#!"), when it is an absolute path; NULL otherwise */
static char *
script_interpreter (const guint8 *buf,
                    gssize        n)
{
  g_autofree char *line = g_strndup ((char *) buf + 2, n - 2);
  char *end = strchr (line, '\n');
  g_auto(GStrv) words = NULL;

  if (end != NULL)
    *end = '\0';
  words = g_strsplit_set (g_strstrip (line), " \t", 2);
  if (words[0] == NULL || words[0][0] != '/')
    return NULL;
  return g_strdup (words[0]);
}

/* @root: where @path_in_root is seen (the host's files in a Flatpak), or NULL */
static gboolean
check_file (const char  *root,
            const char  *path_in_root,
            const char  *shown,
            int          depth,
            GError     **error)
{
  g_autofree char *path = root != NULL ? g_build_filename (root, path_in_root, NULL)
                                       : g_strdup (path_in_root);
  guint8 buf[4096];
  gssize n;
  int fd;

  if (!check_mode (path, shown, error))
    return FALSE;
  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "cannot read %s: %s", shown, g_strerror (errno));
      return FALSE;
    }
  n = read (fd, buf, sizeof buf);
  close (fd);

  if (n > 2 && buf[0] == '#' && buf[1] == '!' && depth == 0)
    {
      /* a script: what matters is its interpreter */
      g_autofree char *interpreter = script_interpreter (buf, n);

      return interpreter == NULL || check_file (root, interpreter, interpreter, depth + 1, error);
    }
  if (elf_is_static (buf, n))
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_UNSUPPORTED,
                   "%s is statically linked: there is no dynamic loader to "
                   "preload the sampler, so it cannot be recorded", shown);
      return FALSE;
    }
  return TRUE;
}

/**
 * flame_recorder_check_program:
 * @resolved: (out) (optional): the file that will run
 *
 * Refuses what the preload cannot reach, before anything is launched:
 * statically linked, set-user-ID or set-group-ID programs, and programs
 * with file capabilities (also as a script's interpreter).
 */
gboolean
flame_recorder_check_program (const char  *program,
                              const char  *cwd,
                              char       **resolved,
                              GError     **error)
{
  g_autofree char *path = NULL;

  if (strchr (program, '/') != NULL)
    path = g_canonicalize_filename (program, cwd);
  else
    path = g_find_program_in_path (program);
  if (path == NULL)
    {
      g_set_error (error, FLAME_RECORDER_ERROR, FLAME_RECORDER_ERROR_NOT_FOUND,
                   "%s: command not found", program);
      return FALSE;
    }
  if (!check_file (NULL, path, program, 0, error))
    return FALSE;
  if (resolved != NULL)
    *resolved = g_steal_pointer (&path);
  return TRUE;
}

/**
 * flame_recorder_check_host_program:
 * @root: where the sandbox sees the host's files (`/run/host`)
 *
 * flame_recorder_check_program() for a program that runs on the host
 * (flatpak-spawn --host), as far as the sandbox can see it: a path is
 * looked up under @root (then as it is: the user's folders are shared),
 * a bare name in the host's usual program folders under @root. What
 * cannot be found is left to the host.
 */
gboolean
flame_recorder_check_host_program (const char  *root,
                                   const char  *program,
                                   const char  *cwd,
                                   GError     **error)
{
  static const char *const dirs[] = {
    "/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin",
  };
  g_autofree char *path = NULL;

  if (strchr (program, '/') != NULL)
    {
      g_autofree char *rooted = NULL;

      path = g_canonicalize_filename (program, cwd);
      rooted = g_build_filename (root, path, NULL);
      if (g_file_test (rooted, G_FILE_TEST_EXISTS))
        return check_file (root, path, program, 0, error);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return check_file (NULL, path, program, 0, error);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *rooted = NULL;

      g_free (path);
      path = g_build_filename (dirs[i], program, NULL);
      rooted = g_build_filename (root, path, NULL);
      if (g_file_test (rooted, G_FILE_TEST_IS_REGULAR))
        return check_file (root, path, program, 0, error);
    }
  return TRUE;
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

/* ---- the profile ---- */

static char *
describe_status (int status)
{
  if (WIFEXITED (status))
    return g_strdup_printf ("exited with status %d", WEXITSTATUS (status));
  if (WIFSIGNALED (status))
    return g_strdup_printf ("killed by signal %d (%s)%s", WTERMSIG (status),
                            g_strsignal (WTERMSIG (status)),
                            WCOREDUMP (status) ? ", core dumped" : "");
  return g_strdup_printf ("wait status %d", status);
}

static char *
hex (GBytes *bytes)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  GString *s = g_string_sized_new (len * 2);

  for (gsize i = 0; i < len; i++)
    g_string_append_printf (s, "%02x", data[i]);
  return g_string_free (s, FALSE);
}

static guint32
intern (FlameProfile *profile,
        const char   *name,
        const char   *file,
        guint         line,
        guint32       flags)
{
  return flame_profile_intern_frame (profile, name, strlen (name), file,
                                     file != NULL ? strlen (file) : 0, line, flags);
}

/* the native frame the run of Python frames starting at @from replaces,
 * as the sampler found it; -1: not found */
static int
run_native (const guint8 *frames,
            guint         from,
            guint         n)
{
  for (; from < n; from++)
    {
      guint64 f;

      memcpy (&f, frames + from * 8, sizeof f);
      if (FLAME_PY_FRAME_ENTRY (f))
        return FLAME_PY_FRAME_NATIVE (f);
    }
  return -1;
}

/* Python frames @from… of a sample, leaf first: one run (up to the
 * frame marked as an entry), or all of them; returns where it stopped */
static guint
append_python (FlameProfile  *profile,
               FlamePyCodes  *codes,
               const guint8  *frames,
               guint          from,
               guint          n,
               gboolean       all,
               gboolean       lines,
               guint32        unknown,
               GArray        *stack)
{
  while (from < n)
    {
      guint64 f;
      const FlamePyCode *code;
      guint32 id;

      memcpy (&f, frames + from * 8, sizeof f);
      from++;
      code = flame_py_codes_lookup (codes, FLAME_PY_FRAME_ID (f));
      if (code == NULL)
        id = unknown;
      else
        {
          /* a function is one frame (its first line), unless asked for
           * one frame per line running */
          guint line = lines ? flame_py_codes_line (codes, FLAME_PY_FRAME_ID (f),
                                                    FLAME_PY_FRAME_LASTI (f)) : 0;

          id = intern (profile, code->name, code->file, line != 0 ? line : code->first_line, 0);
        }
      g_array_append_val (stack, id);
      if (FLAME_PY_FRAME_ENTRY (f) && !all)
        break;
    }
  return from;
}

/* A perf map's name as a frame. node's ("JS:*hot /app/x.js:12:5") are
 * the function, its file and line: the tier mark after "JS:" (~
 * interpreted, ^ baseline, + Maglev, * TurboFan) is dropped, so that a
 * function is one frame whichever tier ran it. Others as they are. */
static guint32
intern_jit (FlameProfile *profile,
            const char   *name)
{
  const char *space, *colon, *p;
  g_autofree char *fn = NULL;
  g_autofree char *file = NULL;
  guint64 line = 0;

  if (!g_str_has_prefix (name, "JS:"))
    return intern (profile, name, NULL, 0, FLAME_FRAME_JIT);
  p = name + 3;
  if (*p != '\0' && strchr ("~^+*", *p) != NULL)
    p++;
  space = strrchr (p, ' ');
  if (space == NULL)
    return intern (profile, *p ? p : "(anonymous)", NULL, 0, FLAME_FRAME_JIT);
  fn = space > p ? g_strndup (p, space - p) : g_strdup ("(anonymous)");
  /* FILE:LINE:COLUMN */
  colon = strrchr (space + 1, ':');
  if (colon != NULL && colon > space + 1)
    {
      const char *c2 = colon;

      while (--c2 > space && *c2 != ':')
        ;
      if (c2 > space + 1)
        {
          file = g_strndup (space + 1, c2 - space - 1);
          line = g_ascii_strtoull (c2 + 1, NULL, 10);
        }
    }
  if (file == NULL)
    file = g_strdup (space + 1);
  return intern (profile, fn, file, (guint) MIN (line, G_MAXUINT), FLAME_FRAME_JIT);
}

/* The perf map the process (or a runtime in it) wrote during the
 * recording: /tmp/perf-PID.map, not older than the recording. Node's,
 * which exist because the recorder asked for them, are removed once
 * read. */
static FlamePerfMap *
load_perf_map (FlameRecorder *self,
               Image         *img)
{
  g_autofree char *path = g_strdup_printf ("/tmp/perf-%d.map", img->pid);
  g_autofree char *base = img->exe != NULL ? g_path_get_basename (img->exe) : NULL;
  FlamePerfMap *map;
  GStatBuf st;

  if (self->host_sampler != NULL || g_stat (path, &st) != 0 ||
      (gint64) st.st_mtime < self->start_wall_s - 1)
    return NULL;
  map = flame_perf_map_load (path);
  if (map != NULL)
    {
      g_autofree char *runtime = g_strdup_printf ("%s (JIT perf map)", base != NULL ? base : "?");
      gboolean seen = FALSE;

      for (guint i = 0; i < self->runtimes->len && !seen; i++)
        seen = strcmp (g_ptr_array_index (self->runtimes, i), runtime) == 0;
      if (!seen)
        g_ptr_array_add (self->runtimes, g_steal_pointer (&runtime));
    }
  if (map != NULL)
    g_ptr_array_add (self->jit_maps, g_strdup_printf ("%s[%d]: %s (%u functions)",
                                                      img->comm != NULL ? img->comm : "?",
                                                      img->pid, path, flame_perf_map_count (map)));
  if (base != NULL && (strcmp (base, "node") == 0 || strcmp (base, "nodejs") == 0))
    g_unlink (path);
  return map;
}

/* the epoch's symbolizer, made the first time */
static Epoch *
epoch_symbolizer (FlameRecorder *self,
                  FlameSymCache *cache,
                  Image         *img,
                  guint32        epoch_index)
{
  Epoch *epoch = g_ptr_array_index (img->epochs, MIN (epoch_index, img->epochs->len - 1));

  if (epoch->sym == NULL)
    {
      epoch->sym = flame_symbolizer_new_shared (cache);
      if (self->host_root != NULL)
        flame_symbolizer_set_root (epoch->sym, self->host_root);
      for (guint i = 0; i < epoch->modules->len; i++)
        {
          Module *m = &g_array_index (epoch->modules, Module, i);
          gsize id_len = 0;
          const guint8 *id = m->build_id != NULL ? g_bytes_get_data (m->build_id, &id_len) : NULL;

          flame_symbolizer_add_module (epoch->sym, m->path, m->base, id, id_len);
        }
    }
  return epoch;
}

/* How many runs of Python frames sample @s (its frames at @frames) has
 * that the sampler did not place on a native frame */
static guint
unplaced_runs (const FlameRecSample *s,
               const guint8         *frames)
{
  guint runs = 0;

  for (guint i = 0; i < s->n_py; i++)
    {
      guint64 f;

      memcpy (&f, frames + (s->n_frames + i) * 8, sizeof f);
      runs += FLAME_PY_FRAME_ENTRY (f) && FLAME_PY_FRAME_NATIVE (f) < 0;
    }
  return runs;
}

/* The functions of sample @s that occur @runs times in it score a
 * point; @depth sums where each first appears. Returns the evaluation
 * loop's name when the symbols give it, else NULL. */
static const char *
score_sample (Epoch                *epoch,
              const FlameRecSample *s,
              const guint8         *frames,
              guint                 runs,
              GHashTable           *occ,
              GHashTable           *depth,
              GHashTable           *score)
{
  GHashTableIter iter;
  gpointer key, value;
  guint pos = 0;

  g_hash_table_remove_all (occ);
  for (guint i = 0; i < s->n_frames; i++)
    {
      const FlameSymFrame *sym;
      guint64 ip;
      guint n;

      memcpy (&ip, frames + i * 8, sizeof ip);
      n = flame_symbolizer_lookup (epoch->sym, ip, i == 0, &sym);
      for (guint j = 0; j < n; j++, pos++)
        {
          if (flame_py_is_eval_frame (sym[j].name))
            return sym[j].name;
          if (!g_hash_table_contains (occ, sym[j].name))
            {
              guint d = GPOINTER_TO_UINT (g_hash_table_lookup (depth, sym[j].name));

              /* where it first appears, summed (for the tie-break) */
              g_hash_table_replace (depth, g_strdup (sym[j].name), GUINT_TO_POINTER (d + pos));
            }
          guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (occ, sym[j].name));

          g_hash_table_replace (occ, (gpointer) sym[j].name, GUINT_TO_POINTER (seen + 1));
        }
    }
  g_hash_table_iter_init (&iter, occ);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (value) == runs)
      {
        guint points = GPOINTER_TO_UINT (g_hash_table_lookup (score, key));

        g_hash_table_replace (score, g_strdup (key), GUINT_TO_POINTER (points + 1));
      }
  return NULL;
}

/* The function of the highest score, of those the one nearest the leaf
 * on average; NULL: none */
static char *
best_scored (GHashTable *score,
             GHashTable *depth)
{
  GHashTableIter iter;
  gpointer key, value;
  char *best = NULL;
  guint best_score = 0;
  gdouble best_depth = 0;

  g_hash_table_iter_init (&iter, score);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      guint sc = GPOINTER_TO_UINT (value);
      gdouble d = GPOINTER_TO_UINT (g_hash_table_lookup (depth, key)) / (gdouble) sc;

      if (sc > best_score || (sc == best_score && d < best_depth))
        {
          best = key;
          best_score = sc;
          best_depth = d;
        }
    }
  return g_strdup (best);
}

/* The name of the evaluation loop's native frames in this image:
 * _PyEval_EvalFrameDefault when the interpreter exports it (3.11, 3.12).
 * Debian's 3.13+ does not, and its frames are named by their unwind
 * entry (python3.13+0x2f7283): then it is the function that occurs, in
 * the most samples, as many times as the sample has runs of Python
 * frames (and of those, the one nearest the leaf). NULL: none. */
static char *
find_eval_frame (FlameRecorder *self,
                 FlameSymCache *cache,
                 Image         *img)
{
  const guint8 *p = img->samples->data;
  const guint8 *end = p != NULL ? p + img->samples->len : NULL;
  g_autoptr(GHashTable) score = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) depth = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) occ = g_hash_table_new (g_str_hash, g_str_equal);

  if (flame_py_codes_is_empty (img->py))
    return NULL;
  while (p < end)
    {
      guint32 epoch_index;
      FlameRecSample s;
      guint runs;

      memcpy (&epoch_index, p, sizeof epoch_index);
      memcpy (&s, p + sizeof epoch_index, sizeof s);
      p += sizeof epoch_index + sizeof s;
      runs = unplaced_runs (&s, p);
      if (runs > 0)
        {
          const char *eval = score_sample (epoch_symbolizer (self, cache, img, epoch_index),
                                           &s, p, runs, occ, depth, score);

          if (eval != NULL)
            return g_strdup (eval);
        }
      p += (s.n_frames + s.n_py) * 8;
    }
  return best_scored (score, depth);
}

/* What add_image_samples() turns one process image's samples into
 * stacks with */
typedef struct
{
  FlameRecorder *self;
  FlameProfile  *profile;
  Image         *img;
  GArray        *stack;        /* guint32 frame ids, leaf first until turned */
  FlamePerfMap  *jit;          /* the process's perf map, or NULL */
  const char    *eval_frame;   /* CPython's evaluation loop, or NULL */
  gboolean       python_only;  /* Python frames only (this process ran Python) */
  guint32        root, truncated, py_truncated, py_unknown, native;
} StackBuilder;

/* Native frame @i of sample @s (frames at @ips, Python frames at @py,
 * *next_py the next of them not placed yet) onto the stack: a run of
 * Python frames where the sampler placed one or the evaluation loop is,
 * a JIT function, or the frames the symbols give (inlined ones too) */
static void
append_native (StackBuilder         *b,
               Epoch                *epoch,
               const FlameRecSample *s,
               const guint8         *ips,
               const guint8         *py,
               guint                *next_py,
               guint                 i)
{
  const FlameSymFrame *frames;
  const char *jit_name;
  gboolean replaced = FALSE;
  guint64 ip;
  guint n;
  int k;

  /* runs the sampler placed: this frame is the evaluation loop */
  while (*next_py < s->n_py && (k = run_native (py, *next_py, s->n_py)) >= 0 && (guint) k <= i)
    {
      *next_py = append_python (b->profile, b->img->py, py, *next_py, s->n_py, FALSE,
                                b->self->python_lines, b->py_unknown, b->stack);
      replaced |= (guint) k == i;
    }
  if (replaced)
    return;
  memcpy (&ip, ips + i * 8, sizeof ip);
  if (b->jit != NULL && (jit_name = flame_perf_map_lookup (b->jit, ip)) != NULL)
    {
      /* JIT-compiled code: in no module, named by the runtime */
      guint32 id = intern_jit (b->profile, jit_name);

      if (!b->python_only)
        g_array_append_val (b->stack, id);
      return;
    }
  n = flame_symbolizer_lookup (epoch->sym, ip, i == 0, &frames);
  for (guint j = 0; j < n; j++)
    {
      guint32 id;

      if (frames[j].own)
        continue;  /* the sampler's thread trampoline */
      if (*next_py < s->n_py && b->eval_frame != NULL && run_native (py, *next_py, s->n_py) < 0 &&
          strcmp (frames[j].name, b->eval_frame) == 0)
        {
          *next_py = append_python (b->profile, b->img->py, py, *next_py, s->n_py, FALSE,
                                    b->self->python_lines, b->py_unknown, b->stack);
          continue;
        }
      if (b->python_only)
        continue;
      id = intern (b->profile, frames[j].name, frames[j].file, frames[j].line,
                   frames[j].inlined ? FLAME_FRAME_INLINED : 0);
      g_array_append_val (b->stack, id);
    }
}

/* The stack of sample @s, whose frames are at @ips, into b->stack, root
 * first. Leaf first from the sampler; each run of Python frames (up to
 * one marked as an entry) takes the place of the next evaluation-loop
 * frame of the native stack; what is left over (the native stack ended
 * early) goes at its root end. */
static void
build_stack (StackBuilder         *b,
             Epoch                *epoch,
             const FlameRecSample *s,
             const guint8         *ips)
{
  const guint8 *py = ips + s->n_frames * 8;
  GArray *stack = b->stack;
  guint next_py = 0;

  g_array_set_size (stack, 0);
  for (guint i = 0; i < s->n_frames; i++)
    append_native (b, epoch, s, ips, py, &next_py, i);
  append_python (b->profile, b->img->py, py, next_py, s->n_py, TRUE, b->self->python_lines,
                 b->py_unknown, stack);
  if (s->h.flags & FLAME_SAMPLE_PY_TRUNCATED)
    g_array_append_val (stack, b->py_truncated);
  if ((s->h.flags & FLAME_SAMPLE_TRUNCATED) && !b->python_only)
    g_array_append_val (stack, b->truncated);
  if (b->python_only && stack->len == 0)
    g_array_append_val (stack, b->native);
  g_array_append_val (stack, b->root);
  for (guint i = 0; i < stack->len / 2; i++)
    {
      guint32 t = g_array_index (stack, guint32, i);

      g_array_index (stack, guint32, i) = g_array_index (stack, guint32, stack->len - 1 - i);
      g_array_index (stack, guint32, stack->len - 1 - i) = t;
    }
}

/* The sample's thread, counted */
static void
count_thread_sample (FlameProfile *profile,
                     GHashTable   *threads,
                     const char   *name,
                     int           pid,
                     int           tid)
{
  FlameThread *thread = g_hash_table_lookup (threads, GINT_TO_POINTER (tid));

  if (thread == NULL)
    {
      thread = flame_profile_ensure_thread (profile, name, pid, tid);
      g_hash_table_insert (threads, GINT_TO_POINTER (tid), thread);
    }
  thread->samples += 1;
}

static void
add_image_samples (FlameRecorder *self,
                   FlameProfile  *profile,
                   FlameSymCache *cache,
                   Image         *img,
                   GArray        *stack,
                   gdouble        period_ns,
                   const gdouble *mem_weights,
                   gdouble       *total_weight)
{
  guint64 index = 0;
  const guint8 *p = img->samples->data;
  /* no samples: no data either, and NULL + 0 is undefined */
  const guint8 *end = p != NULL ? p + img->samples->len : NULL;
  const char *name = img->comm != NULL && *img->comm ? img->comm : "[process]";
  GHashTable *threads = g_hash_table_new (NULL, NULL);
  g_autoptr(FlamePerfMap) jit = NULL;
  g_autofree char *eval_frame = NULL;
  StackBuilder b = { .self = self, .profile = profile, .img = img, .stack = stack };

  /* one statement each: the frames' order in the file is theirs */
  b.root = intern (profile, name, NULL, 0, FLAME_FRAME_THREAD);
  b.truncated = intern (profile, "[truncated]", NULL, 0, 0);
  b.py_truncated = intern (profile, "[truncated Python stack]", NULL, 0, 0);
  b.py_unknown = intern (profile, "[unknown Python code]", NULL, 0, 0);
  /* Python frames only: in the processes that ran Python code */
  b.python_only = self->python_only && !flame_py_codes_is_empty (img->py);
  b.native = intern (profile, "[native code]", NULL, 0, 0);
  b.jit = jit = load_perf_map (self, img);
  b.eval_frame = eval_frame = find_eval_frame (self, cache, img);

  while (p < end)
    {
      guint32 epoch_index;
      FlameRecSample s;

      memcpy (&epoch_index, p, sizeof epoch_index);
      memcpy (&s, p + sizeof epoch_index, sizeof s);
      p += sizeof epoch_index + sizeof s;
      build_stack (&b, epoch_symbolizer (self, cache, img, epoch_index), &s, p);
      p += (s.n_frames + s.n_py) * 8;
      if (mem_weights != NULL)
        {
          for (guint c = 0; c < FLAME_RECORDER_N_METRICS; c++)
            if (mem_weights[index * FLAME_RECORDER_N_METRICS + c] > 0)
              flame_profile_add_stack (profile, c, (guint32 *) stack->data, stack->len,
                                       mem_weights[index * FLAME_RECORDER_N_METRICS + c]);
        }
      else
        flame_profile_add_stack (profile, 0, (guint32 *) stack->data, stack->len,
                                 s.weight * period_ns);
      index++;
      *total_weight += s.weight;
      count_thread_sample (profile, threads, name, img->pid, s.h.tid);
    }
  g_hash_table_unref (threads);

  /* the files stay open in @cache for the next processes */
  for (guint e = 0; e < img->epochs->len; e++)
    g_clear_pointer (&((Epoch *) g_ptr_array_index (img->epochs, e))->sym, flame_symbolizer_free);
}

static const char *const metric_names[FLAME_RECORDER_N_METRICS] = {
  "allocated", "allocations", "peak", "leaked",
};
static const FlameUnit metric_units[FLAME_RECORDER_N_METRICS] = {
  FLAME_UNIT_BYTES, FLAME_UNIT_COUNT, FLAME_UNIT_BYTES, FLAME_UNIT_BYTES,
};

static gint
compare_mem_events (gconstpointer a,
                    gconstpointer b)
{
  const MemEvent *x = a, *y = b;

  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct
{
  gdouble allocated, allocations, peak, leaked;  /* exact when the process said */
  gboolean exact;
} MemTotals;

static void
scale_column (gdouble *w,
              guint64  n,
              guint    column,
              gdouble  want)
{
  gdouble sum = 0;

  for (guint64 i = 0; i < n; i++)
    sum += w[i * FLAME_RECORDER_N_METRICS + column];
  if (sum <= 0 || want <= 0)
    return;
  for (guint64 i = 0; i < n; i++)
    w[i * FLAME_RECORDER_N_METRICS + column] *= want / sum;
}

#define W(w, sample, metric) \
  ((w)[(sample) * FLAME_RECORDER_N_METRICS + FLAME_RECORDER_METRIC_##metric])

/* Each sampled allocation stands for size / p bytes and 1 / p
 * allocations, p = 1 - exp (-size / mean) being its chance to be
 * sampled; @by_seq gets the allocations by their seq */
static void
weigh_allocations (GArray     *mem,
                   guint64     n,
                   gdouble     mean,
                   gdouble    *w,
                   GHashTable *by_seq)
{
  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);

      if (ev->alloc_seq == 0 && ev->sample < n)
        {
          gdouble p = -expm1 (-(gdouble) ev->size / mean);

          if (p <= 0)
            continue;
          W (w, ev->sample, ALLOCATED) = ev->size / p;
          W (w, ev->sample, ALLOCATIONS) = 1 / p;
          g_hash_table_insert (by_seq, &ev->seq, ev);
        }
    }
}

/* Without the process's own peak (it was killed): the seq at the
 * highest sampled estimate of the live bytes, replayed in order */
static guint64
estimate_peak_seq (GArray     *mem,
                   gdouble    *w,
                   GHashTable *by_seq)
{
  guint64 peak_seq = G_MAXUINT64;
  gdouble live = 0, best = 0;

  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);
      MemEvent *a = ev->alloc_seq == 0 ? ev : g_hash_table_lookup (by_seq, &ev->alloc_seq);

      if (a == NULL || (ev->alloc_seq == 0 && g_hash_table_lookup (by_seq, &ev->seq) == NULL))
        continue;  /* freed here, allocated before the fork */
      live += (ev->alloc_seq == 0 ? 1 : -1) * W (w, a->sample, ALLOCATED);
      if (live > best)
        {
          best = live;
          peak_seq = ev->seq;
        }
    }
  return peak_seq;
}

/* The sampled allocations still live at @peak_seq make the peak's
 * column, those never freed the leaks' */
static void
weigh_live (GArray     *mem,
            guint64     n,
            guint64     peak_seq,
            gdouble    *w,
            GHashTable *by_seq)
{
  g_autofree gboolean *freed_by_peak = g_new0 (gboolean, MAX (n, 1));
  g_autofree gboolean *freed = g_new0 (gboolean, MAX (n, 1));

  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);
      MemEvent *a;

      if (ev->alloc_seq == 0 || (a = g_hash_table_lookup (by_seq, &ev->alloc_seq)) == NULL)
        continue;
      freed[a->sample] = TRUE;
      if (ev->seq <= peak_seq)
        freed_by_peak[a->sample] = TRUE;
    }
  for (guint i = 0; i < mem->len; i++)
    {
      MemEvent *ev = &g_array_index (mem, MemEvent, i);
      gdouble bytes;

      if (ev->alloc_seq != 0 || ev->sample >= n)
        continue;
      bytes = W (w, ev->sample, ALLOCATED);
      if (ev->seq <= peak_seq && !freed_by_peak[ev->sample])
        W (w, ev->sample, PEAK) = bytes;
      if (!freed[ev->sample])
        W (w, ev->sample, LEAKED) = bytes;
    }
}

/* The columns scaled to the process's exact totals, added to @totals;
 * without them, the sampled estimates added */
static void
add_memory_totals (Image     *img,
                   guint64    n,
                   gdouble   *w,
                   MemTotals *totals)
{
  if (img->have_stat)
    {
      const FlameRecMemStat *st = &img->stat;
      gdouble peak = st->peak_bytes > st->base_bytes ?
                     (gdouble) (st->peak_bytes - st->base_bytes) : 0;
      gdouble leaked = st->live_bytes > st->base_bytes ?
                       (gdouble) (st->live_bytes - st->base_bytes) : 0;

      scale_column (w, n, FLAME_RECORDER_METRIC_ALLOCATED, st->total_bytes);
      scale_column (w, n, FLAME_RECORDER_METRIC_ALLOCATIONS, st->total_count);
      scale_column (w, n, FLAME_RECORDER_METRIC_PEAK, peak);
      scale_column (w, n, FLAME_RECORDER_METRIC_LEAKED, leaked);
      totals->allocated += st->total_bytes;
      totals->allocations += st->total_count;
      totals->peak += peak;
      totals->leaked += leaked;
      totals->exact = TRUE;
      return;
    }
  for (guint64 i = 0; i < n; i++)
    {
      totals->allocated += W (w, i, ALLOCATED);
      totals->allocations += W (w, i, ALLOCATIONS);
      totals->peak += W (w, i, PEAK);
      totals->leaked += W (w, i, LEAKED);
    }
}

/* The weights of @img's samples, FLAME_RECORDER_N_METRICS per sample.
 * Replayed in order, the sampled allocations live at the process's peak
 * (the last seq before it, which the process sent) give the stack mix
 * at the peak, those never freed the leaks. With the exact totals, each
 * column is scaled to them: the sampling gives the split among stacks,
 * the counters the sums. */
static gdouble *
memory_weights (FlameRecorder *self,
                Image         *img,
                MemTotals     *totals)
{
  guint64 n = img->n_samples;
  gdouble *w = g_new0 (gdouble, MAX (n, 1) * FLAME_RECORDER_N_METRICS);
  g_autoptr(GHashTable) by_seq = g_hash_table_new (g_int64_hash, g_int64_equal);
  gdouble mean = img->have_stat && img->stat.mean > 0 ? img->stat.mean : self->memory_mean;
  guint64 peak_seq;

  g_array_sort (img->mem, compare_mem_events);
  weigh_allocations (img->mem, n, mean, w, by_seq);
  peak_seq = estimate_peak_seq (img->mem, w, by_seq);
  if (img->have_stat)
    peak_seq = img->stat.peak_seq;
  weigh_live (img->mem, n, peak_seq, w, by_seq);
  add_memory_totals (img, n, w, totals);
  return w;
}

#undef W

/* g_qsort_with_data passes pointers to the elements */
static gint
compare_strv (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

/* timer_periods, timer_period_mean_ns, _min_ns, _max_ns: the periods
 * the sampler drew for its jitter, over every process that exited in
 * order (the others did not say) */
static void
set_period_metadata (FlameRecorder *self,
                     FlameProfile  *profile)
{
  guint64 n = 0, min = G_MAXUINT64, max = 0;
  gdouble sum = 0;
  char num[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < self->images->len; i++)
    {
      Image *img = g_ptr_array_index (self->images, i);

      if (img->periods == 0)
        continue;
      n += img->periods;
      sum += (gdouble) img->period_sum_ns;
      min = MIN (min, img->period_min_ns);
      max = MAX (max, img->period_max_ns);
    }
  if (n == 0)
    return;
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, n);
  flame_profile_set_metadata (profile, "timer_periods", num);
  g_ascii_formatd (num, sizeof num, "%.1f", sum / (gdouble) n);
  flame_profile_set_metadata (profile, "timer_period_mean_ns", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, min);
  flame_profile_set_metadata (profile, "timer_period_min_ns", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, max);
  flame_profile_set_metadata (profile, "timer_period_max_ns", num);
}

/* The exact memory totals, for the summaries (flame_memory_get_totals),
 * and what makes them estimates or empty */
static void
set_memory_metadata (FlameRecorder   *self,
                     FlameProfile    *profile,
                     const MemTotals *mem,
                     guint64          n_samples)
{
  char num[64];

  g_snprintf (num, sizeof num, "%.0f", mem->allocated);
  flame_profile_set_metadata (profile, "memory_allocated_bytes", num);
  g_snprintf (num, sizeof num, "%.0f", mem->allocations);
  flame_profile_set_metadata (profile, "memory_allocations", num);
  g_snprintf (num, sizeof num, "%.0f", mem->peak);
  flame_profile_set_metadata (profile, "memory_peak_bytes", num);
  g_snprintf (num, sizeof num, "%.0f", mem->leaked);
  flame_profile_set_metadata (profile, "memory_leaked_bytes", num);
  g_snprintf (num, sizeof num, "%u", self->memory_mean);
  flame_profile_set_metadata (profile, "memory_sampling_mean_bytes", num);
  if (!mem->exact)
    flame_profile_add_warning (profile, "no process reported its exact memory totals "
                               "(killed?): the figures are sampled estimates");
  if (n_samples == 0)
    flame_profile_add_warning (profile, "no sampled allocations: the command allocated "
                               "too little (the sampling mean is %u bytes)", self->memory_mean);
}

/* Each module path with a build id, once: PATH -> hex id */
static void
collect_build_ids (Image      *img,
                   GHashTable *ids)
{
  for (guint e = 0; e < img->epochs->len; e++)
    {
      Epoch *epoch = g_ptr_array_index (img->epochs, e);

      for (guint m = 0; m < epoch->modules->len; m++)
        {
          Module *mod = &g_array_index (epoch->modules, Module, m);

          if (mod->build_id != NULL && !g_hash_table_contains (ids, mod->path))
            g_hash_table_insert (ids, g_strdup (mod->path), hex (mod->build_id));
        }
    }
}

/* "PATH=ID;PATH=ID", sorted, so two recordings of one program list them alike */
static char *
build_ids_text (GHashTable *ids)
{
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array (ids, NULL);
  guint n = g_hash_table_size (ids);
  GString *out = g_string_new (NULL);

  g_qsort_with_data (keys, n, sizeof (gpointer), compare_strv, NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s=%s", i ? ";" : "", (char *) keys[i],
                            (char *) g_hash_table_lookup (ids, keys[i]));
  return g_string_free (out, FALSE);
}

/* The command as a shell would take it: quoted only when an argument
 * needs it */
static char *
quoted_command (char **argv)
{
  GString *s;
  guint i;

  for (i = 0; argv[i] != NULL; i++)
    if (strpbrk (argv[i], " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL || argv[i][0] == '\0')
      break;
  if (argv[i] == NULL)
    return g_strjoinv (" ", argv);
  s = g_string_new (NULL);
  for (guint j = 0; argv[j] != NULL; j++)
    {
      g_autofree char *q = g_shell_quote (argv[j]);

      g_string_append_printf (s, "%s%s", j ? " " : "", q);
    }
  return g_string_free (s, FALSE);
}

/* @key: the strings of @items joined by @separator, when there are any */
static void
set_joined_metadata (FlameProfile *profile,
                     const char   *key,
                     GPtrArray    *items,
                     const char   *separator)
{
  g_autofree char *joined = NULL;

  if (items->len == 0)
    return;
  g_ptr_array_add (items, NULL);
  joined = g_strjoinv (separator, (char **) items->pdata);
  g_ptr_array_remove_index (items, items->len - 1);
  flame_profile_set_metadata (profile, key, joined);
}

/* What was run, where and when */
static void
set_command_metadata (FlameRecorder *self,
                      FlameProfile  *profile,
                      GDateTime     *started)
{
  g_autofree char *quoted = quoted_command (self->argv);
  g_autofree char *args = g_strjoinv ("\x1f", self->argv + 1);
  g_autofree char *started_s = g_date_time_format_iso8601 (started);

  flame_profile_set_metadata (profile, "recorder", "flamediff-sampler " PACKAGE_VERSION);
  flame_profile_set_metadata (profile, "command", quoted);
  flame_profile_set_metadata (profile, "program", self->argv[0]);
  /* arguments one by one, separated by U+001F (unit separator) */
  flame_profile_set_metadata (profile, "arguments", args);
  flame_profile_set_metadata (profile, "working_directory", self->cwd);
  flame_profile_set_metadata (profile, "start_time", started_s);
}

/* What build_profile() counts over the processes */
typedef struct
{
  MemTotals mem;
  gdouble   total_weight;   /* CPU: periods */
  guint64   n_samples, n_lost;
  guint     n_processes, n_unrecorded;
} RecordingCounts;

/* Every process's samples into @profile, their build IDs into @ids,
 * the symbol files' warnings (once per file) into the profile */
static void
add_processes (FlameRecorder   *self,
               FlameProfile    *profile,
               GHashTable      *ids,
               RecordingCounts *c)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* every module file is read once for all the processes */
  g_autoptr(FlameSymCache) cache = flame_sym_cache_new (SAMPLER_PREFIX);
  gdouble period_ns = 1e9 / self->hz;
  GPtrArray *warnings;

  for (guint i = 0; i < self->images->len; i++)
    {
      Image *img = g_ptr_array_index (self->images, i);
      g_autofree gdouble *w = NULL;

      c->n_processes++;
      if (img->disabled)
        c->n_unrecorded++;
      c->n_samples += img->n_samples;
      c->n_lost += img->lost;
      w = self->memory_mean > 0 ? memory_weights (self, img, &c->mem) : NULL;
      add_image_samples (self, profile, cache, img, stack, period_ns, w, &c->total_weight);
      collect_build_ids (img, ids);
    }
  /* once per file for the whole recording */
  warnings = flame_sym_cache_get_warnings (cache);
  for (guint i = 0; i < warnings->len; i++)
    flame_profile_add_warning (profile, "%s", (const char *) g_ptr_array_index (warnings, i));
}

/* The recording's figures as metadata (a '.' in every locale: metadata
 * is data) */
static void
set_counts_metadata (FlameRecorder         *self,
                     FlameProfile          *profile,
                     const RecordingCounts *c,
                     gdouble                duration_ms)
{
  char num[64];

  g_ascii_formatd (num, sizeof num, "%.3f", duration_ms);
  flame_profile_set_metadata (profile, "duration_ms", num);
  g_snprintf (num, sizeof num, "%u", self->hz);
  flame_profile_set_metadata (profile, "frequency_hz", num);
  g_ascii_formatd (num, sizeof num, "%.1f", self->effective_hz);
  flame_profile_set_metadata (profile, "effective_frequency_hz", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, c->n_samples);
  flame_profile_set_metadata (profile, "samples", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, c->n_lost);
  flame_profile_set_metadata (profile, "samples_lost", num);
  g_snprintf (num, sizeof num, "%u", c->n_processes);
  flame_profile_set_metadata (profile, "processes", num);
  set_period_metadata (self, profile);
  if (c->n_unrecorded > 0)
    {
      g_snprintf (num, sizeof num, "%u", c->n_unrecorded);
      flame_profile_set_metadata (profile, "processes_not_sampled", num);
    }
}

/* How it ended, the build IDs, what the runtimes and the sampler said */
static void
set_run_metadata (FlameRecorder *self,
                  FlameProfile  *profile,
                  GHashTable    *ids)
{
  g_autofree char *build_ids = build_ids_text (ids);

  if (self->have_status)
    {
      g_autofree char *status = describe_status (self->wait_status);

      flame_profile_set_metadata (profile, "exit_status", status);
    }
  flame_profile_set_metadata (profile, "build_ids", build_ids);
  set_joined_metadata (profile, "jit_maps", self->jit_maps, "; ");
  /* what the recorder added to the environment for them */
  if (self->jit_maps->len > 0)
    flame_profile_set_metadata (profile, "node_options", NODE_JIT_OPTIONS);
  set_joined_metadata (profile, "runtimes", self->runtimes, "; ");
  set_joined_metadata (profile, "notes", self->notes, "\n");
  for (guint i = 0; i < self->notes->len; i++)
    flame_profile_add_warning (profile, "%s", (const char *) g_ptr_array_index (self->notes, i));
}

static FlameProfile *
build_profile (FlameRecorder *self,
               GDateTime     *started)
{
  FlameProfile *profile = flame_profile_new (FLAME_FORMAT_SPEEDSCOPE,
                                            self->memory_mean > 0 ? FLAME_RECORDER_N_METRICS : 1);
  g_autoptr(GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  RecordingCounts c = { 0 };
  gdouble period_ns = 1e9 / self->hz;
  gdouble duration_ms;

  if (self->memory_mean > 0)
    {
      flame_profile_set_unit (profile, FLAME_UNIT_BYTES);
      flame_profile_set_event (profile, "malloc");
    }
  else
    {
      flame_profile_set_unit (profile, FLAME_UNIT_NANOSECONDS);
      flame_profile_set_interval_ms (profile, 1000.0 / self->hz);
      flame_profile_set_event (profile, "cpu-clock");
    }

  add_processes (self, profile, ids, &c);
  flame_profile_add_samples (profile, 0, c.n_samples);
  if (self->memory_mean > 0)
    set_memory_metadata (self, profile, &c.mem, c.n_samples);
  else if (c.n_samples == 0)
    flame_profile_add_warning (profile, "no samples: the command used less CPU time than "
                               "one timer tick (4 ms with a 250 Hz kernel), or was not sampled");

  duration_ms = (self->end_us - self->start_us) / 1000.0;
  flame_profile_set_duration_ms (profile, duration_ms);
  self->effective_hz = c.total_weight > 0 && self->memory_mean == 0 ?
                       c.n_samples / (c.total_weight * period_ns / 1e9) : 0;

  set_command_metadata (self, profile, started);
  set_counts_metadata (self, profile, &c, duration_ms);
  set_run_metadata (self, profile, ids);

  flame_profile_finish (profile);
  return profile;
}

/* DIR/PROGRAM-STAMP[-N]SUFFIX that does not exist yet */
static char *
unique_path (const char *dir,
             const char *program,
             const char *suffix)
{
  g_autofree char *base = g_path_get_basename (program);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");

  for (guint i = 1; ; i++)
    {
      g_autofree char *name = i == 1 ?
        g_strdup_printf ("%s-%s%s", base, stamp, suffix) :
        g_strdup_printf ("%s-%s-%u%s", base, stamp, i, suffix);
      char *path = g_build_filename (dir, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        return path;
      g_free (path);
    }
}

static char *
unique_output_path (const char *program)
{
  g_autofree char *dir = flame_recorder_default_dir ();

  return unique_path (dir, program, ".speedscope.json");
}

/**
 * flame_recorder_new_runs_dir:
 *
 * A new folder's path in the recordings folder for repeated runs of
 * @program (PROGRAM-STAMP, not created yet), which
 * flame_recorder_run_path() fills.
 */
char *
flame_recorder_new_runs_dir (const char *program)
{
  g_autofree char *dir = flame_recorder_default_dir ();

  g_return_val_if_fail (program != NULL, NULL);
  return unique_path (dir, program, "");
}

/**
 * flame_recorder_run_path:
 * @index: from 1
 *
 * DIR/run-NN.speedscope.json: run @index of a set of repeated runs, a
 * name that sorts in the order of the runs (flame_comparison_list_runs).
 */
char *
flame_recorder_run_path (const char *dir,
                         guint       index)
{
  g_autofree char *name = g_strdup_printf ("run-%02u.speedscope.json", index);

  g_return_val_if_fail (dir != NULL, NULL);
  return g_build_filename (dir, name, NULL);
}

static gboolean
write_profile (FlameRecorder  *self,
               FlameProfile   *profile,
               GError        **error)
{
  g_autoptr(GString) json = g_string_new (NULL);
  g_autofree char *dir = NULL;

  if (self->output_path == NULL)
    self->output_path = unique_output_path (self->argv[0]);
  dir = g_path_get_dirname (self->output_path);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot create %s: %s", dir, g_strerror (errno));
      return FALSE;
    }
  if (!(flame_profile_get_n_columns (profile) == FLAME_RECORDER_N_METRICS && self->memory_mean > 0 ?
        flame_speedscope_write_columns (profile, metric_names, metric_units, json, error) :
        flame_speedscope_write (profile, json, error)))
    return FALSE;
  /* temporary file, fsync, rename: never half a recording on disk */
  if (!g_file_set_contents_full (self->output_path, json->str, json->len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, error))
    return FALSE;
  flame_profile_set_path (profile, self->output_path);
  return TRUE;
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
                find_sampler_build (MEMORY_SAMPLER_NAME, "memory sampler", error) :
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
  /* after the command: what its children still send, for a while */
  return !(w->exited_us != 0 && (w->eof || now - w->exited_us > TAIL_MS * 1000 ||
                                 take_stop_request (self, cancellable)));
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
  profile = build_profile (self, started);
  schedule_publish (self);
  if (!write_profile (self, profile, error))
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
    self->output_path = unique_output_path (self->argv[0]);
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
  FlameProfile *profile = record_run (self, cancellable, &error);

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
  profile = build_profile (self, started);
  if (!write_profile (self, profile, error))
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
