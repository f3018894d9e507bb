/* flame-sampler-python.c: CPython's frames, read from the SIGPROF handler.
 *
 * At each sample the handler finds the sampled thread's PyThreadState
 * (cached per thread, checked against pthread_self() every time; looked
 * up in the interpreter's thread list when it does not match) and walks
 * its chain of _PyInterpreterFrame records. Every read of interpreter
 * memory goes through process_vm_readv on our own pid: a pointer that
 * is stale or half-written gives an error, never a fault, and a chain
 * that changes under the walk ends it early (a truncated Python stack).
 * Depth and string lengths are bounded.
 *
 * The layouts: CPython 3.13 and later describe themselves in
 * _Py_DebugOffsets at the start of _PyRuntime (cookie "xdebugpy" and the
 * version; read here for the versions whose struct we know: 3.13, 3.14,
 * 3.15), 3.11 and 3.12 from their headers (one table each, checked with
 * offsetof against a built interpreter). Anything else is reported as
 * seen but unsupported, and samples keep their native stacks.
 *
 * A code object is sent once per process image (FLAME_REC_PYCODE: its
 * qualified name, file, first line and line table), the first time a
 * sample meets it; samples name it by that record's id. The recorder
 * cannot read the process after it ended, so the names travel now.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "flame-sampler-protocol.h"
#include "flame-sampler-python.h"

#define TLS __thread __attribute__((tls_model ("initial-exec")))

typedef struct
{
  /* _PyRuntimeState */
  size_t rt_interp_head;
  /* PyInterpreterState */
  size_t is_next, is_threads_head;
  /* PyThreadState; ts_frame is the _PyCFrame pointer (3.11) or the
   * current frame itself (3.13+, cf_current_frame < 0) */
  size_t ts_next, ts_thread_id, ts_frame;
  long   cf_current_frame;
  long   ts_interp;        /* PyThreadState.interp, checked on lookup; -1: not */
  /* _PyInterpreterFrame */
  size_t fr_code, fr_previous, fr_instr, fr_owner;
  long   fr_is_entry;      /* 3.11: a flag byte; -1: shim frames instead */
  int    owner_cstack;     /* the owner value of a shim frame, -1: none */
  /* PyCodeObject */
  size_t co_filename, co_qualname, co_firstlineno, co_linetable, co_code;
  /* PyASCIIObject / PyCompactUnicodeObject, PyBytesObject */
  size_t u_length, u_state, u_ascii_size, u_compact_size;
  size_t b_size, b_sval;
} PyLayout;

/* CPython 3.11 (Include/internal/pycore_frame.h, pycore_code.h,
 * cpython/pystate.h, pycore_runtime.h, cpython/unicodeobject.h). */
static const PyLayout layout_311 = {
  .rt_interp_head = 40,
  .is_next = 0, .is_threads_head = 16,
  .ts_next = 8, .ts_thread_id = 152, .ts_frame = 56, .cf_current_frame = 8, .ts_interp = 16,
  .fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .fr_is_entry = 68,
  .owner_cstack = -1,
  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 72, .co_linetable = 136,
  .co_code = 184,
  .u_length = 16, .u_state = 32, .u_ascii_size = 48, .u_compact_size = 72,
  .b_size = 16, .b_sval = 32,
};

/* CPython 3.12 (the same headers; checked with offsetof against 3.12.5,
 * a release build). Its patch releases keep these offsets: fields added
 * in them (_finalizing_id) went to the ends of the structs, as their
 * comments say, for the ABI. Against 3.11: _PyCFrame lost use_tracing
 * (current_frame first), PyThreadState lost its recursion counters
 * ahead of thread_id, _PyInterpreterFrame starts with f_code and has no
 * is_entry: each native call of the evaluation loop starts its chain
 * with a shim frame on the C stack (owner FRAME_OWNED_BY_CSTACK), as in
 * 3.13; PyASCIIObject lost wstr (40 bytes). prev_instr is the last code
 * unit run, as in 3.11. */
static const PyLayout layout_312 = {
  .rt_interp_head = 40,
  .is_next = 0, .is_threads_head = 72,
  .ts_next = 8, .ts_thread_id = 136, .ts_frame = 56, .cf_current_frame = 0, .ts_interp = 16,
  .fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70, .fr_is_entry = -1,
  .owner_cstack = 3,
  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 68, .co_linetable = 136,
  .co_code = 192,
  .u_length = 16, .u_state = 32, .u_ascii_size = 40, .u_compact_size = 56,
  .b_size = 16, .b_sval = 32,
};

/* Where 3.13+ keeps each offset we need inside its _Py_DebugOffsets
 * (Include/internal/pycore_runtime.h in 3.13,
 * pycore_debug_offsets.h from 3.14): the struct grows between versions. */
#define N_DEBUG_OFFSETS 20

typedef struct
{
  uint16_t minor;
  uint16_t free_threaded;
  /* runtime_state.interpreters_head, interpreter_state.{next,
   * threads_head}, thread_state.{next, current_frame, thread_id},
   * interpreter_frame.{previous, executable, instr_ptr, owner},
   * code_object.{filename, qualname, linetable, firstlineno,
   * co_code_adaptive}, bytes_object.{ob_size, ob_sval},
   * unicode_object.{state, length, asciiobject_size} */
  uint16_t at[N_DEBUG_OFFSETS];
} DebugOffsetsLayout;

static const DebugOffsetsLayout debug_layouts[] = {
  { 13, 16, { 40, 64, 72, 168, 184, 192, 232, 240, 248, 264,
              280, 296, 304, 312, 344, 520, 528, 544, 552, 560 } },
  /* 3.14 adds threads_main, code_object_generation and tlbc_generation
   * to interpreter_state, stackpointer and tlbc_index to
   * interpreter_frame, co_tlbc to code_object and a set_object ahead
   * of dict_object */
  { 14, 16, { 40, 64, 72, 192, 208, 216, 256, 264, 272, 288,
              320, 336, 344, 352, 384, 600, 608, 624, 632, 640 } },
  { 15, 16, { 40, 64, 72, 192, 208, 240, 320, 328, 336, 352,
              384, 400, 408, 416, 448, 696, 704, 720, 728, 736 } },
};

static PyLayout L;
static int py_ready;              /* L, runtime and code_type are set */
static int py_probed;             /* an interpreter was found (supported or not) */
static pid_t py_pid;
static uintptr_t runtime;         /* &_PyRuntime */
static uintptr_t code_type;       /* &PyCode_Type */

static TLS uintptr_t my_tstate;   /* this thread's PyThreadState, 0 = not known */
static TLS unsigned my_misses;

/* ---- safe reads ---- */

static int
rd (uintptr_t addr,
    void     *buf,
    size_t    len)
{
  struct iovec local = { buf, len };
  struct iovec remote = { (void *) addr, len };

  if (addr == 0)
    return 0;
  return process_vm_readv (py_pid, &local, 1, &remote, 1, 0) == (ssize_t) len;
}

static int
rd_ptr (uintptr_t  addr,
        uintptr_t *value)
{
  return rd (addr, value, sizeof *value);
}

/* ---- the code objects already sent ----
 *
 * Open addressing, filled from handlers of any thread with CAS. A slot
 * keeps the address and (fingerprint << 32 | id): an address reused by
 * another code object has another fingerprint and gets a new id. */

#define CODE_SLOTS 16384
#define CODE_PROBES 32

static struct
{
  uintptr_t addr;
  uint64_t  fp_id;
} codes[CODE_SLOTS];
static uint32_t next_id;

void
flame_py_forget_codes (pid_t pid)
{
  py_pid = pid;
  memset (codes, 0, sizeof codes);
  next_id = 0;
}

static uint32_t
mix (uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (uint32_t) x;
}

/* a compact str: its storage kind and up to @max bytes of characters */
static uint32_t
read_str (uintptr_t      obj,
          unsigned char *buf,
          uint32_t       max,
          uint8_t       *kind)
{
  unsigned char head[128];
  int64_t length;
  uint32_t state, n;
  unsigned k;

  *kind = 1;
  if (L.u_compact_size > sizeof head || !rd (obj, head, L.u_compact_size))
    return 0;
  memcpy (&length, head + L.u_length, sizeof length);
  memcpy (&state, head + L.u_state, sizeof state);
  k = (state >> 2) & 7;
  if (!(state & (1u << 5)) || (k != 1 && k != 2 && k != 4) || length < 0)
    return 0;  /* not compact: never the case for code object names */
  n = length > (int64_t) (max / k) ? max / k * k : (uint32_t) length * k;
  if (!rd (obj + ((state & (1u << 6)) ? L.u_ascii_size : L.u_compact_size), buf, n))
    return 0;
  *kind = (uint8_t) k;
  return n;
}

static uint32_t
send_code (uintptr_t            code,
           const unsigned char *head,
           FlamePyEmit          emit,
           void                *data)
{
  struct
  {
    FlameRecPyCode r;
    unsigned char  data[FLAME_PY_MAX_NAME + FLAME_PY_MAX_FILE + FLAME_PY_MAX_TABLE];
  } rec;
  uintptr_t name, file, table;
  unsigned char *p = rec.data;
  int64_t size;
  int32_t first;

  (void) code;
  memcpy (&name, head + L.co_qualname, sizeof name);
  memcpy (&file, head + L.co_filename, sizeof file);
  memcpy (&table, head + L.co_linetable, sizeof table);
  memcpy (&first, head + L.co_firstlineno, sizeof first);

  memset (&rec.r, 0, sizeof rec.r);
  rec.r.id = __atomic_add_fetch (&next_id, 1, __ATOMIC_RELAXED);
  rec.r.first_line = first;
  rec.r.name_len = (uint16_t) read_str (name, p, FLAME_PY_MAX_NAME, &rec.r.name_kind);
  p += rec.r.name_len;
  rec.r.file_len = (uint16_t) read_str (file, p, FLAME_PY_MAX_FILE, &rec.r.file_kind);
  p += rec.r.file_len;
  if (rd (table + L.b_size, &size, sizeof size) && size > 0)
    {
      uint32_t n = size > FLAME_PY_MAX_TABLE ? FLAME_PY_MAX_TABLE : (uint32_t) size;

      if (rd (table + L.b_sval, p, n))
        {
          rec.r.table_len = (uint16_t) n;
          p += n;
        }
    }
  if (!emit (&rec, (uint32_t) (p - (unsigned char *) &rec), data))
    return 0;
  return rec.r.id;
}

/* The id of the code object at @code (whose first bytes are @head),
 * sending it first if this process has not yet; 0 if it could not be. */
static uint32_t
code_id (uintptr_t            code,
         const unsigned char *head,
         FlamePyEmit          emit,
         void                *data)
{
  uintptr_t name, file, table;
  int32_t first;
  uint32_t fp, h;

  memcpy (&name, head + L.co_qualname, sizeof name);
  memcpy (&file, head + L.co_filename, sizeof file);
  memcpy (&table, head + L.co_linetable, sizeof table);
  memcpy (&first, head + L.co_firstlineno, sizeof first);
  fp = mix (name ^ (file << 1) ^ (table << 2) ^ (uint64_t) (uint32_t) first) | 1;

  h = mix (code);
  for (int i = 0; i < CODE_PROBES; i++)
    {
      size_t s = (h + (uint32_t) i) & (CODE_SLOTS - 1);
      uintptr_t a = __atomic_load_n (&codes[s].addr, __ATOMIC_ACQUIRE);
      uint32_t id;

      if (a == code)
        {
          uint64_t v = __atomic_load_n (&codes[s].fp_id, __ATOMIC_ACQUIRE);

          if ((uint32_t) (v >> 32) == fp)
            return (uint32_t) v;
          /* another code object at that address now */
          id = send_code (code, head, emit, data);
          if (id != 0)
            __atomic_store_n (&codes[s].fp_id, (uint64_t) fp << 32 | id, __ATOMIC_RELEASE);
          return id;
        }
      if (a == 0)
        {
          uintptr_t expected = 0;

          id = send_code (code, head, emit, data);
          if (id == 0)
            return 0;
          if (__atomic_compare_exchange_n (&codes[s].addr, &expected, code, 0,
                                           __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            __atomic_store_n (&codes[s].fp_id, (uint64_t) fp << 32 | id, __ATOMIC_RELEASE);
          return id;
        }
    }
  /* table full around here: a record every time */
  return send_code (code, head, emit, data);
}

/* ---- threads ---- */

static uintptr_t
find_tstate (void)
{
  uintptr_t self = (uintptr_t) pthread_self ();
  uintptr_t interp, ts, tid;

  if (my_tstate != 0 && rd_ptr (my_tstate + L.ts_thread_id, &tid) && tid == self)
    return my_tstate;
  my_tstate = 0;
  /* a thread without Python (yet): look again now and then only */
  if (my_misses++ % 16 != 0)
    return 0;
  if (!rd_ptr (runtime + L.rt_interp_head, &interp))
    return 0;
  for (int i = 0; i < 16 && interp != 0; i++)
    {
      if (!rd_ptr (interp + L.is_threads_head, &ts))
        return 0;
      for (int j = 0; j < 4096 && ts != 0; j++)
        {
          if (!rd_ptr (ts + L.ts_thread_id, &tid))
            return 0;
          if (tid == self)
            {
              uintptr_t owner;

              /* a thread state of this interpreter, or the layout is
               * not the one we think: then no Python frames */
              if (L.ts_interp >= 0 &&
                  (!rd_ptr (ts + (size_t) L.ts_interp, &owner) || owner != interp))
                return 0;
              my_tstate = ts;
              my_misses = 0;
              return ts;
            }
          if (!rd_ptr (ts + L.ts_next, &ts))
            return 0;
        }
      if (!rd_ptr (interp + L.is_next, &interp))
        return 0;
    }
  return 0;
}

/* ---- the handler ---- */

int
flame_py_stack (uint64_t   *out,
                uintptr_t  *shims,
                int         max,
                int        *truncated,
                FlamePyEmit emit,
                void       *data)
{
  unsigned char fr[128], head[512];
  uintptr_t ts, frame;
  size_t fr_len, co_len;
  int n = 0;

  *truncated = 0;
  for (int i = 0; i < max; i++)
    shims[i] = 0;
  if (!__atomic_load_n (&py_ready, __ATOMIC_ACQUIRE))
    return 0;
  ts = find_tstate ();
  if (ts == 0 || !rd_ptr (ts + L.ts_frame, &frame))
    return 0;
  if (L.cf_current_frame >= 0 && !rd_ptr (frame + (size_t) L.cf_current_frame, &frame))
    return 0;

  fr_len = L.fr_owner + 1;
  if (L.fr_code + 8 > fr_len)
    fr_len = L.fr_code + 8;
  if (L.fr_previous + 8 > fr_len)
    fr_len = L.fr_previous + 8;
  if (L.fr_instr + 8 > fr_len)
    fr_len = L.fr_instr + 8;
  co_len = L.co_code < sizeof head ? L.co_code : sizeof head;

  for (int steps = 0; frame != 0; steps++)
    {
      uintptr_t code, type, instr, here = frame;
      uint32_t lasti = FLAME_PY_NO_LASTI;
      int owner;

      if (n == max || steps >= 4 * max || !rd (frame, fr, fr_len))
        {
          *truncated = 1;
          break;
        }
      memcpy (&code, fr + L.fr_code, sizeof code);
      memcpy (&instr, fr + L.fr_instr, sizeof instr);
      memcpy (&frame, fr + L.fr_previous, sizeof frame);
      owner = fr[L.fr_owner];
      code &= ~(uintptr_t) 7;  /* 3.14+: a tagged stack reference */

      if (L.owner_cstack >= 0 && owner == L.owner_cstack)
        {
          /* the shim a native call of the evaluation loop starts with,
           * a local variable of that call: where it is on the native
           * stack says which native frame ran the frames above it */
          if (n > 0)
            {
              out[n - 1] |= 1ull << 63;
              /* the first one: 3.14+ end the chain with the thread
               * state's own base frame, which is not on the C stack */
              if (shims[n - 1] == 0)
                shims[n - 1] = here;
            }
          continue;
        }
      if (!rd (code, head, co_len))
        {
          *truncated = 1;
          break;
        }
      memcpy (&type, head + 8, sizeof type);
      if (type != code_type)
        continue;  /* not (or no longer) a code object */
      if (instr >= code + L.co_code &&
          instr - (code + L.co_code) < 2 * (uintptr_t) FLAME_PY_NO_LASTI)
        lasti = (uint32_t) ((instr - (code + L.co_code)) / 2);
      out[n++] = FLAME_PY_FRAME (code_id (code, head, emit, data), lasti,
                                 L.fr_is_entry >= 0 && fr[L.fr_is_entry]);
    }
  if (n > 0)
    out[n - 1] |= 1ull << 63;  /* the outermost one is always an entry */
  return n;
}

/* ---- finding the interpreter ---- */

static void
version_text (char    *text,
              size_t   size,
              uint32_t v)
{
  unsigned level = (v >> 4) & 15;
  const char *tag = level == 0xa ? "a" : level == 0xb ? "b" : level == 0xc ? "rc" : NULL;

  if (tag != NULL)
    snprintf (text, size, "CPython %u.%u.%u%s%u", v >> 24, (v >> 16) & 255, (v >> 8) & 255,
              tag, v & 15);
  else
    snprintf (text, size, "CPython %u.%u.%u", v >> 24, (v >> 16) & 255, (v >> 8) & 255);
}

/* 3.13+: the layout from the interpreter itself; NULL or why not */
static const char *
layout_from_debug_offsets (uintptr_t rt,
                           uint32_t  v)
{
  const DebugOffsetsLayout *d = NULL;
  uint64_t o[N_DEBUG_OFFSETS];
  uint64_t free_threaded;

  for (size_t i = 0; i < sizeof debug_layouts / sizeof debug_layouts[0]; i++)
    if (debug_layouts[i].minor == ((v >> 16) & 255))
      d = &debug_layouts[i];
  if (d == NULL)
    return "a version whose _Py_DebugOffsets layout is not known";
  if (!rd (rt + d->free_threaded, &free_threaded, sizeof free_threaded))
    return "_PyRuntime cannot be read";
  if (free_threaded)
    return "a free-threaded build, not supported";
  for (size_t i = 0; i < N_DEBUG_OFFSETS; i++)
    if (!rd (rt + d->at[i], &o[i], sizeof o[i]) || o[i] > 65536)
      return "_Py_DebugOffsets cannot be read";
  L = (PyLayout) {
    .rt_interp_head = o[0], .is_next = o[1], .is_threads_head = o[2],
    .ts_next = o[3], .ts_frame = o[4], .ts_thread_id = o[5], .cf_current_frame = -1,
    .ts_interp = -1,
    .fr_previous = o[6], .fr_code = o[7], .fr_instr = o[8], .fr_owner = o[9],
    .fr_is_entry = -1,
    /* the frame that starts each native call of the evaluation loop:
     * FRAME_OWNED_BY_CSTACK (3.13), FRAME_OWNED_BY_INTERPRETER (3.14+) */
    .owner_cstack = 3,
    .co_filename = o[10], .co_qualname = o[11], .co_linetable = o[12],
    .co_firstlineno = o[13], .co_code = o[14],
    .b_size = o[15], .b_sval = o[16],
    .u_state = o[17], .u_length = o[18], .u_ascii_size = o[19],
    /* sizeof (PyCompactUnicodeObject) since 3.12 */
    .u_compact_size = 56,
  };
  return NULL;
}

int
flame_py_probe (pid_t     pid,
                char     *text,
                size_t    text_size,
                uint32_t *version,
                int      *supported)
{
  void *rt, *ver, *type;
  const char *why = NULL;
  uint32_t v = 0;
  uintptr_t probe;
  size_t len;

  if (py_probed)
    return 0;
  rt = dlsym (RTLD_DEFAULT, "_PyRuntime");
  if (rt == NULL)
    return 0;
  py_probed = 1;
  py_pid = pid;
  ver = dlsym (RTLD_DEFAULT, "Py_Version");
  type = dlsym (RTLD_DEFAULT, "PyCode_Type");

  if (ver != NULL)
    v = (uint32_t) *(const unsigned long *) ver;
  if (memcmp (rt, "xdebugpy", 8) == 0)
    {
      uint64_t dv;

      memcpy (&dv, (const char *) rt + 8, sizeof dv);
      v = (uint32_t) dv;
      why = layout_from_debug_offsets ((uintptr_t) rt, v);
    }
  else if (ver == NULL)
    why = "older than 3.11, whose frames are not read";
  else if ((v >> 16) == 0x030b)
    L = layout_311;
  else if ((v >> 16) == 0x030c && ((v >> 4) & 15) < 0xc)
    why = "a 3.12 pre-release, whose frame layout is not known";
  else if ((v >> 16) == 0x030c)
    L = layout_312;
  else
    why = "a version whose frame layout is not known";
  if (why == NULL && type == NULL)
    why = "no PyCode_Type symbol";
  if (why == NULL && !rd_ptr ((uintptr_t) rt, &probe))
    why = errno == EPERM || errno == ENOSYS ? "process_vm_readv is not permitted"
                                            : "process_vm_readv fails";

  if (v != 0)
    version_text (text, text_size, v);
  else
    snprintf (text, text_size, "CPython");
  len = strlen (text);
  if (why != NULL)
    snprintf (text + len, text_size - len, ": %s", why);
  *version = v;
  *supported = why == NULL;
  if (why == NULL)
    {
      runtime = (uintptr_t) rt;
      code_type = (uintptr_t) type;
      __atomic_store_n (&py_ready, 1, __ATOMIC_RELEASE);
    }
  return 1;
}
