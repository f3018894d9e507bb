/* flame-bench-gen.c: writes a pair of large, realistic folded profiles
 * (a baseline and a perturbed current run) for `make bench`.
 *
 * Copyright 2026 The Flamediff developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The output depends only on the options (fixed seed, own PRNG), never on
 * the platform or the GLib version.
 *
 * Model:
 * - A frame table of --frames distinct names in the styles of C++, Rust,
 *   C/kernel, Java and Go profiles (~28 bytes on average, as in
 *   stackcollapse-perf output of real programs). The first frames are
 *   process/thread roots; the next few thousand are "hot" library
 *   functions that show up everywhere (drawn with a 1/x law).
 * - Each frame has a fixed list of callees, so the same function tends to
 *   call the same functions wherever it appears.
 * - Stacks come from a walk over the call tree: each new stack keeps the
 *   previous one minus a few frames (usually 1-4; sometimes it jumps to
 *   another root) and grows again to a depth that itself wanders
 *   between --min-depth and --max-depth. Most stacks therefore share long
 *   prefixes, and the tree has a few new nodes per stack. With
 *   --prefix random a stack keeps only a prefix of uniform random length
 *   of the previous one (about 12 new nodes per stack: the harder shape
 *   of tools/bench-scale.sh).
 * - Counts follow a Pareto law (most stacks 1-3 samples, a few thousands).
 * - The current profile is the baseline with perturbations decided per
 *   call path prefix (so whole subtrees move together): some subtrees
 *   slower (x1.3-3), some faster (x0.25-0.8), some removed, some new;
 *   plus +-20% per-stack noise and a 5% longer run overall.
 * - Every stack is distinct within a file. Lines are written sorted
 *   byte-wise like stackcollapse-perf.pl (default) or shuffled.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#define N_ROOTS 24
#define N_HOT   3000

/* ---- deterministic PRNG: xoshiro256** seeded by splitmix64 ---- */

typedef struct
{
  guint64 s[4];
} Rng;

static guint64
splitmix64 (guint64 *x)
{
  guint64 z = (*x += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void
rng_init (Rng     *rng,
          guint64  seed)
{
  for (guint i = 0; i < 4; i++)
    rng->s[i] = splitmix64 (&seed);
}

static inline guint64
rotl (guint64 x,
      int     k)
{
  return (x << k) | (x >> (64 - k));
}

static inline guint64
rng_next (Rng *rng)
{
  guint64 *s = rng->s;
  guint64 result = rotl (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

/* uniform in [0, n) */
static inline guint32
rng_below (Rng     *rng,
           guint32  n)
{
  return (guint32) (((rng_next (rng) >> 32) * (guint64) n) >> 32);
}

/* uniform in [0, 1) */
static inline gdouble
rng_double (Rng *rng)
{
  return (rng_next (rng) >> 11) * (1.0 / 9007199254740992.0);
}

static gdouble
rng_normal (Rng *rng)
{
  gdouble u = 1.0 - rng_double (rng);
  gdouble v = rng_double (rng);

  return sqrt (-2.0 * log (u)) * cos (2.0 * G_PI * v);
}

static inline guint64
hash2 (guint64 a,
       guint64 b)
{
  guint64 x = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;

  return splitmix64 (&x);
}

/* ---- frame names ---- */

static const char * const cxx_ns[] = {
  "std", "mozilla", "dom", "js", "jit", "gfx", "layers", "net", "base",
  "absl", "folly", "v8", "internal", "blink", "cc", "skia", "boost", "asio",
  "detail", "llvm", "clang", "webrtc", "grpc", "content", "ui", "WTF",
  "WebCore", "JSC", "Qt", "mojo", "ipc", "media", "cv", "tf", "xla",
};

static const char * const camel[] = {
  "HTML", "Media", "Element", "Async", "Event", "Dispatcher", "Buffer",
  "Pool", "Task", "Queue", "Frame", "Layer", "Compositor", "Http",
  "Channel", "Stream", "Socket", "Parser", "Node", "Tree", "Builder",
  "Cache", "Table", "Hash", "Map", "Allocator", "Thread", "Worker",
  "Scheduler", "Timer", "Render", "Paint", "Style", "Layout", "Text",
  "Font", "Image", "Decoder", "Encoder", "Request", "Response", "Handler",
  "Manager", "Service", "Client", "Server", "Session", "Context", "State",
  "Runtime", "Script", "Module", "Compiler", "Register", "Block", "Graph",
  "Visitor", "Pass", "Document", "Window", "Shape", "Run", "Message",
  "Loop", "Pump", "Observer", "Proxy", "Inline", "Object", "String",
  "Atom", "Shader", "Texture", "Surface", "Display", "List", "Record",
};

static const char * const verbs[] = {
  "Dispatch", "Handle", "Process", "Run", "Get", "Set", "Update", "Flush",
  "Resolve", "Compute", "Invalidate", "Create", "Destroy", "Append",
  "Insert", "Remove", "Find", "Lookup", "Parse", "Emit", "Visit", "Build",
  "Schedule", "Post", "Notify", "Apply", "Reset", "Grow", "Copy", "Move",
  "Read", "Write", "Encode", "Decode", "Draw", "Paint", "Layout", "Reflow",
  "Call", "Invoke", "Enter", "Leave", "Lock", "Unlock", "Wait", "Signal",
};

static const char * const snake[] = {
  "alloc", "free", "lock", "unlock", "read", "write", "poll", "wait", "wake",
  "queue", "task", "page", "fault", "sched", "irq", "copy", "user", "mem",
  "map", "unmap", "vma", "file", "inode", "sock", "send", "recv", "tcp",
  "skb", "hash", "find", "insert", "delete", "grow", "slab", "cache", "spin",
  "mutex", "cond", "signal", "timer", "clock", "event", "epoll", "futex",
  "mmap", "brk", "handle", "entry", "exit", "do", "sys", "try", "get", "put",
  "raw", "buf", "str", "len", "node", "list", "rb", "tree", "next", "init",
};

static const char * const rust_crates[] = {
  "tokio", "core", "alloc", "std", "hyper", "serde", "serde_json", "rayon",
  "futures_util", "regex", "hashbrown", "tracing", "mio", "bytes", "h2",
  "tower", "axum", "reqwest", "crossbeam_epoch", "parking_lot",
};

static const char * const rust_types[] = {
  "Harness<T,S>", "RawVec<T,A>", "Vec<T,A>", "HashMap<K,V,S>", "Arc<T>",
  "Box<T>", "Option<T>", "Result<T,E>", "Pin<P>", "Core<T,S>", "Driver",
  "Registration", "Deserializer<R>", "Serializer<W>", "Regex", "Bytes",
  "BytesMut", "Connection<T,B>", "Stream<T,B>", "Worker", "Inject<T>",
  "Local<T>", "Span", "Instrumented<T>", "Map<Fut,F>", "Then<A,B,F>",
};

static const char * const java_pkgs[] = {
  "java/util", "java/lang", "java/io", "java/nio", "java/util/concurrent",
  "org/apache/kafka/common", "org/apache/kafka/clients", "io/netty/channel",
  "io/netty/buffer", "org/springframework/web", "com/fasterxml/jackson/core",
  "org/eclipse/jetty/server", "sun/nio/ch", "jdk/internal/misc",
  "org/apache/lucene/index", "com/google/common/collect",
};

static const char * const go_pkgs[] = {
  "runtime", "net/http", "sync", "encoding/json", "reflect", "bufio",
  "crypto/tls", "github.com/prometheus/client_golang/prometheus",
  "google.golang.org/grpc", "context", "io", "os", "syscall", "internal/poll",
};

static const char * const roots[] = {
  "firefox", "Web Content", "tokio-runtime-w", "java", "GC Thread#0",
  "postgres", "swapper", "Renderer", "Compositor", "DOM Worker", "node",
  "python3", "nginx", "redis-server", "C2 CompilerThre", "kworker/u8:2",
  "envoy", "clickhouse-serv", "mysqld", "Xwayland", "gnome-shell",
  "StreamTrans #3", "ThreadPoolForeg", "kafka-network-t",
};

#define PICK(rng, arr) (arr[rng_below ((rng), G_N_ELEMENTS (arr))])

static void
append_camel (GString *s,
              Rng     *rng,
              guint    words)
{
  for (guint i = 0; i < words; i++)
    g_string_append (s, PICK (rng, camel));
}

static void
append_snake (GString *s,
              Rng     *rng,
              guint    words)
{
  for (guint i = 0; i < words; i++)
    {
      if (i > 0)
        g_string_append_c (s, '_');
      g_string_append (s, PICK (rng, snake));
    }
}

static void
make_name (GString *s,
           Rng     *rng)
{
  guint r = rng_below (rng, 100);

  g_string_truncate (s, 0);
  if (r < 34)
    {
      /* C++: ns::Class::Method, sometimes templated */
      guint n_ns = 1 + rng_below (rng, 2) + (rng_below (rng, 4) == 0);

      for (guint i = 0; i < n_ns; i++)
        g_string_append_printf (s, "%s::", PICK (rng, cxx_ns));
      if (rng_below (rng, 12) == 0)
        g_string_append (s, "(anonymous namespace)::");
      append_camel (s, rng, 1 + rng_below (rng, 2) + (rng_below (rng, 3) == 0));
      switch (rng_below (rng, 8))
        {
        case 0:
          g_string_append (s, "<int>");
          break;
        case 1:
          g_string_append (s, "<T>");
          break;
        default:
          break;
        }
      g_string_append (s, "::");
      if (rng_below (rng, 10) == 0)
        g_string_append_c (s, '~');
      g_string_append (s, PICK (rng, verbs));
      append_camel (s, rng, rng_below (rng, 2));
    }
  else if (r < 52)
    {
      /* Rust: crate::module::Type<T>::method or crate::module::function */
      g_string_append_printf (s, "%s::", PICK (rng, rust_crates));
      append_snake (s, rng, 1);
      g_string_append (s, "::");
      if (rng_below (rng, 2) == 0)
        g_string_append_printf (s, "%s::", PICK (rng, rust_types));
      append_snake (s, rng, 1 + rng_below (rng, 2));
    }
  else if (r < 82)
    {
      /* C, libc, kernel */
      if (rng_below (rng, 4) == 0)
        g_string_append (s, "__");
      append_snake (s, rng, 2 + rng_below (rng, 3));
      if (rng_below (rng, 3) == 0)
        g_string_append (s, "_[k]");
    }
  else if (r < 92)
    {
      /* Java (async-profiler) */
      g_string_append_printf (s, "%s/", PICK (rng, java_pkgs));
      append_camel (s, rng, 1 + rng_below (rng, 2));
      g_string_append_c (s, '.');
      g_string_append (s, PICK (rng, snake));
      append_camel (s, rng, rng_below (rng, 2));
    }
  else if (r < 99)
    {
      /* Go */
      g_string_append_printf (s, "%s.", PICK (rng, go_pkgs));
      if (rng_below (rng, 2) == 0)
        {
          g_string_append (s, "(*");
          append_camel (s, rng, 1);
          g_string_append (s, ").");
        }
      g_string_append (s, PICK (rng, verbs));
      append_camel (s, rng, rng_below (rng, 2));
    }
  else
    {
      /* unsymbolized */
      static const char * const libs[] = { "libxul.so", "libc.so.6", "libjvm.so", "[unknown]" };
      g_string_append_printf (s, "%s+0x%x", PICK (rng, libs), 0x1000 + rng_below (rng, 0x3ffffff));
    }
}

static char **
make_frames (Rng   *rng,
             guint  n_frames)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) s = g_string_new (NULL);
  char **names = g_new0 (char *, n_frames + 1);

  for (guint f = 0; f < n_frames; f++)
    {
      guint tries = 0;

      do
        {
          if (f < N_ROOTS && f < G_N_ELEMENTS (roots))
            g_string_assign (s, roots[f]);
          else
            make_name (s, rng);
          if (++tries > 4 && g_hash_table_contains (seen, s->str))
            {
              /* rare: disambiguate like a compiler clone would */
              g_string_append_printf (s, ".cold.%u", rng_below (rng, 1000));
            }
        }
      while (g_hash_table_contains (seen, s->str));
      names[f] = g_strdup (s->str);
      g_hash_table_add (seen, names[f]);
    }
  return names;
}

/* ---- the stacks ---- */

enum
{
  IN_BASE = 1 << 0,
  IN_CUR  = 1 << 1,
};

typedef struct
{
  guint32 offset;  /* into Gen.frames */
  guint16 len;
  guint8  where;   /* IN_BASE | IN_CUR */
  guint64 count_b;
  guint64 count_c;
} Stack;

typedef struct
{
  Rng      rng;
  guint    n_frames;
  char   **names;
  guint32 *name_lens;
  guint    min_depth;
  guint    max_depth;
  gboolean random_prefix;  /* --prefix random */
  GArray  *frames;   /* guint32: all stacks' frames back to back */
  GArray  *stacks;   /* Stack */
  guint64 *set;      /* open addressing set of stack hashes (0 = empty) */
  guint64  set_mask;
  guint32  cold_next;
} Gen;

static gboolean
set_add (Gen     *gen,
         guint64  h)
{
  guint64 i;

  if (h == 0)
    h = 1;
  for (i = h & gen->set_mask; gen->set[i] != 0; i = (i + 1) & gen->set_mask)
    if (gen->set[i] == h)
      return FALSE;
  gen->set[i] = h;
  return TRUE;
}

static inline guint
callee_fanout (guint32 f)
{
  return 2 + hash2 (f, 0xfa) % 7;
}

/* The next frame below @parent. */
static guint32
pick_child (Gen     *gen,
            guint32  parent)
{
  guint r = rng_below (&gen->rng, 100);
  guint32 n_cold = gen->n_frames - N_ROOTS;

  if (r < 55)
    {
      /* one of the parent's usual callees */
      guint j = rng_below (&gen->rng, callee_fanout (parent));
      return N_ROOTS + hash2 (parent, j + 1) % n_cold;
    }
  else if (r < 78)
    {
      /* a hot library function: density ~ 1/x over the hot set */
      guint32 i = (guint32) (pow ((gdouble) N_HOT, rng_double (&gen->rng))) - 1;
      return N_ROOTS + MIN (i, N_HOT - 1);
    }
  else
    {
      /* anything, round-robin over a fixed permutation so that every
       * frame shows up */
      guint32 k = gen->cold_next++ % n_cold;
      return N_ROOTS + (guint32) (((guint64) k * 40503u + 7) % n_cold);
    }
}

/* Perturbation of the current run for a path prefix: the subtree below
 * it is removed, new, or its counts scale. Decided by the prefix hash. */
typedef struct
{
  gboolean removed;
  gboolean added;
  gdouble  factor;
} Perturb;

static void
perturb_prefix (guint64  h,
                guint    depth,
                Perturb *p)
{
  guint64 r = hash2 (h, 0x5eed);
  guint sel = r % 100000;
  gdouble u = ((r >> 20) & 0xffff) / 65536.0;

  if (depth >= 6 && depth <= 14)
    {
      if (sel < 250)
        p->removed = TRUE;
      else if (sel < 500)
        p->added = TRUE;
    }
  if (depth >= 3 && depth <= 16)
    {
      if (sel >= 1000 && sel < 1500)
        p->factor *= 1.3 + 1.7 * u;   /* regression */
      else if (sel >= 1500 && sel < 2000)
        p->factor *= 0.25 + 0.55 * u; /* improvement */
    }
}

static guint64
pareto_count (Rng *rng)
{
  gdouble u = 1.0 - rng_double (rng);
  gdouble c = floor (pow (u, -1.0 / 1.1));

  return (guint64) MIN (c, 1e6);
}

static void
generate (Gen   *gen,
          guint  n_stacks)
{
  guint32 path[256];
  guint64 hashes[256];
  guint len = 0;
  guint n_base = 0;
  gdouble depth = (gen->min_depth + gen->max_depth) / 2.0;

  while (n_base < n_stacks)
    {
      guint target;
      guint keep;
      Stack st = { 0 };
      Perturb p = { FALSE, FALSE, 1.0 };
      guint tries = 0;

      /* the depth wanders, reflected at the bounds */
      depth += rng_normal (&gen->rng) * 4.0;
      while (depth < gen->min_depth || depth > gen->max_depth)
        depth = depth < gen->min_depth ? 2 * gen->min_depth - depth : 2 * gen->max_depth - depth;
      target = (guint) (depth + 0.5);
      target = CLAMP (target, gen->min_depth, gen->max_depth);

      if (len == 0 || (!gen->random_prefix && rng_below (&gen->rng, 100) < 3))
        keep = 0;
      else if (gen->random_prefix)
        /* only a prefix of uniform random length shared with the
         * previous stack: about half of each stack is new tree nodes */
        keep = rng_below (&gen->rng, MIN (len, target));
      else
        {
          guint k = 1;
          while (rng_below (&gen->rng, 100) < 55 && k < len)
            k++;
          keep = len - MIN (k, len);
          keep = MIN (keep, target - 1);
        }

    retry:
      len = keep;
      if (len == 0)
        {
          path[0] = rng_below (&gen->rng, N_ROOTS);
          hashes[0] = hash2 (0x1234, path[0]);
          len = 1;
        }
      while (len < target)
        {
          path[len] = pick_child (gen, path[len - 1]);
          hashes[len] = hash2 (hashes[len - 1], path[len]);
          len++;
        }
      if (!set_add (gen, hashes[len - 1]))
        {
          /* already emitted: draw the tail again */
          if (++tries < 8)
            goto retry;
          keep = 0;
          tries = 0;
          goto retry;
        }

      for (guint d = 1; d <= len; d++)
        perturb_prefix (hashes[d - 1], d, &p);

      st.offset = gen->frames->len;
      st.len = len;
      st.count_b = pareto_count (&gen->rng);
      if (p.removed)
        st.where = IN_BASE;
      else if (p.added)
        st.where = IN_CUR;
      else
        st.where = IN_BASE | IN_CUR;
      if (st.where & IN_CUR)
        {
          gdouble noise = exp (rng_normal (&gen->rng) * 0.2);
          gdouble base = p.added ? pareto_count (&gen->rng) : st.count_b;
          st.count_c = (guint64) MAX (1.0, floor (base * p.factor * 1.05 * noise + 0.5));
        }
      if (st.where & IN_BASE)
        n_base++;
      g_array_append_vals (gen->frames, path, len);
      g_array_append_val (gen->stacks, st);
    }
}

/* Byte-wise order of the "a;b;c" strings, as `sort` and
 * stackcollapse-perf.pl write them, without building the strings. */
static Gen *sort_gen;

static int
compare_stacks (const void *pa,
                const void *pb)
{
  const Stack *a = &g_array_index (sort_gen->stacks, Stack, *(const guint32 *) pa);
  const Stack *b = &g_array_index (sort_gen->stacks, Stack, *(const guint32 *) pb);
  const guint32 *fa = &g_array_index (sort_gen->frames, guint32, a->offset);
  const guint32 *fb = &g_array_index (sort_gen->frames, guint32, b->offset);
  guint n = MIN (a->len, b->len);

  for (guint i = 0; i < n; i++)
    {
      const char *x, *y;
      guint lx, ly, j;
      int cx, cy;

      if (fa[i] == fb[i])
        continue;
      x = sort_gen->names[fa[i]];
      y = sort_gen->names[fb[i]];
      lx = sort_gen->name_lens[fa[i]];
      ly = sort_gen->name_lens[fb[i]];
      for (j = 0; j < lx && j < ly && x[j] == y[j]; j++)
        ;
      /* past the end of a name comes ';' when the stack goes on, or
       * nothing (lowest) when it ends */
      cx = j < lx ? (guchar) x[j] : (i + 1 < a->len ? ';' : -1);
      cy = j < ly ? (guchar) y[j] : (i + 1 < b->len ? ';' : -1);
      return cx < cy ? -1 : 1;
    }
  return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

static gboolean
write_file (Gen            *gen,
            const char     *path,
            const guint32  *order,
            guint           n,
            guint8          which,
            guint64        *out_bytes,
            guint          *out_stacks,
            GError        **error)
{
  FILE *fp = fopen (path, "w");
  static char buf[1 << 20];
  guint64 bytes = 0;
  guint n_written = 0;

  if (fp == NULL)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "%s: %s", path, g_strerror (saved));
      return FALSE;
    }
  setvbuf (fp, buf, _IOFBF, sizeof buf);

  for (guint i = 0; i < n; i++)
    {
      const Stack *st = &g_array_index (gen->stacks, Stack, order[i]);
      const guint32 *f = &g_array_index (gen->frames, guint32, st->offset);
      char num[32];
      int nlen;

      if (!(st->where & which))
        continue;
      for (guint d = 0; d < st->len; d++)
        {
          if (d > 0)
            putc_unlocked (';', fp);
          fwrite (gen->names[f[d]], 1, gen->name_lens[f[d]], fp);
          bytes += gen->name_lens[f[d]] + (d > 0);
        }
      nlen = g_snprintf (num, sizeof num, " %" G_GUINT64_FORMAT "\n",
                         which == IN_BASE ? st->count_b : st->count_c);
      fwrite (num, 1, nlen, fp);
      bytes += nlen;
      n_written++;
    }

  if (fflush (fp) != 0 || ferror (fp))
    {
      int saved = errno;
      fclose (fp);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "%s: %s", path, g_strerror (saved));
      return FALSE;
    }
  fclose (fp);
  *out_bytes = bytes;
  *out_stacks = n_written;
  return TRUE;
}

static void
shuffle (Rng     *rng,
         guint32 *order,
         guint    n)
{
  for (guint i = n; i > 1; i--)
    {
      guint j = rng_below (rng, i);
      guint32 t = order[i - 1];
      order[i - 1] = order[j];
      order[j] = t;
    }
}

int
main (int    argc,
      char **argv)
{
  gint n_stacks = 300000;
  gint n_frames = 50000;
  gint min_depth = 5;
  gint max_depth = 40;
  gint64 seed = 20260101;
  g_autofree char *order_name = NULL;
  g_autofree char *prefix_name = NULL;
  g_auto(GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "stacks", 'n', 0, G_OPTION_ARG_INT, &n_stacks,
      "Distinct stacks in the baseline (default 300000)", "N" },
    { "frames", 'F', 0, G_OPTION_ARG_INT, &n_frames, "Distinct frame names (default 50000)", "N" },
    { "min-depth", 0, 0, G_OPTION_ARG_INT, &min_depth, "Shallowest stack (default 5)", "N" },
    { "max-depth", 0, 0, G_OPTION_ARG_INT, &max_depth, "Deepest stack (default 40)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 20260101)", "N" },
    { "order", 'o', 0, G_OPTION_ARG_STRING, &order_name,
      "Line order: sorted (default, like stackcollapse-perf.pl) or shuffled", "ORDER" },
    { "prefix", 'p', 0, G_OPTION_ARG_STRING, &prefix_name,
      "Prefix shared with the previous stack: walk (default; it loses a few frames) or random (a uniform random length)",
      "MODE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "BASELINE CURRENT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gboolean shuffled = FALSE;
  Gen gen = { 0 };
  guint32 *order;
  guint n_all;
  guint64 bytes_b, bytes_c;
  guint stacks_b, stacks_c;
  gsize set_size = 1;
  guint64 *used;
  guint n_used = 0;
  gdouble name_bytes = 0;
  guint64 frame_refs = 0;

  context = g_option_context_new ("BASELINE CURRENT");
  g_option_context_set_summary (context,
    "Write a large, realistic pair of folded profiles for benchmarks:\n"
    "BASELINE, and CURRENT = BASELINE with some subtrees slower, some\n"
    "faster, some stacks removed and some new. Deterministic for a seed.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flame-bench-gen: %s\n", error->message);
      return 1;
    }
  if (files == NULL || g_strv_length (files) != 2)
    {
      g_printerr ("flame-bench-gen: expected BASELINE and CURRENT output files\n");
      return 1;
    }
  if (order_name == NULL || strcmp (order_name, "sorted") == 0)
    shuffled = FALSE;
  else if (strcmp (order_name, "shuffled") == 0)
    shuffled = TRUE;
  else
    {
      g_printerr ("flame-bench-gen: --order: expected sorted or shuffled, not “%s”\n", order_name);
      return 1;
    }
  if (prefix_name == NULL || strcmp (prefix_name, "walk") == 0)
    gen.random_prefix = FALSE;
  else if (strcmp (prefix_name, "random") == 0)
    gen.random_prefix = TRUE;
  else
    {
      g_printerr ("flame-bench-gen: --prefix: expected walk or random, not “%s”\n", prefix_name);
      return 1;
    }
  if (n_stacks < 1 || n_stacks > 50000000 || n_frames < N_ROOTS + N_HOT + 1 ||
      min_depth < 2 || max_depth < min_depth || max_depth > 250)
    {
      g_printerr ("flame-bench-gen: need 1 <= stacks <= 5e7, frames > %d, "
                  "2 <= min-depth <= max-depth <= 250\n", N_ROOTS + N_HOT);
      return 1;
    }

  rng_init (&gen.rng, (guint64) seed);
  gen.n_frames = n_frames;
  gen.min_depth = min_depth;
  gen.max_depth = max_depth;
  gen.names = make_frames (&gen.rng, n_frames);
  gen.name_lens = g_new (guint32, n_frames);
  for (gint f = 0; f < n_frames; f++)
    gen.name_lens[f] = strlen (gen.names[f]);
  gen.frames = g_array_sized_new (FALSE, FALSE, sizeof (guint32), (guint) n_stacks * 24);
  gen.stacks = g_array_sized_new (FALSE, FALSE, sizeof (Stack), (guint) n_stacks + n_stacks / 16);
  while (set_size < (gsize) n_stacks * 3)
    set_size *= 2;
  gen.set = g_new0 (guint64, set_size);
  gen.set_mask = set_size - 1;

  generate (&gen, n_stacks);

  n_all = gen.stacks->len;
  order = g_new (guint32, n_all);
  for (guint i = 0; i < n_all; i++)
    order[i] = i;
  sort_gen = &gen;
  qsort (order, n_all, sizeof (guint32), compare_stacks);
  if (shuffled)
    shuffle (&gen.rng, order, n_all);

  if (!write_file (&gen, files[0], order, n_all, IN_BASE, &bytes_b, &stacks_b, &error))
    {
      g_printerr ("flame-bench-gen: %s\n", error->message);
      return 1;
    }
  if (shuffled)
    shuffle (&gen.rng, order, n_all);
  if (!write_file (&gen, files[1], order, n_all, IN_CUR, &bytes_c, &stacks_c, &error))
    {
      g_printerr ("flame-bench-gen: %s\n", error->message);
      return 1;
    }

  /* statistics of the baseline, for the bench log */
  used = g_new0 (guint64, n_frames);
  for (guint i = 0; i < n_all; i++)
    {
      const Stack *st = &g_array_index (gen.stacks, Stack, i);
      if (!(st->where & IN_BASE))
        continue;
      for (guint d = 0; d < st->len; d++)
        {
          guint32 f = g_array_index (gen.frames, guint32, st->offset + d);
          if (used[f]++ == 0)
            n_used++;
          name_bytes += gen.name_lens[f];
          frame_refs++;
        }
    }
  g_print ("%s: %u stacks, %" G_GUINT64_FORMAT " bytes, %u distinct frames, "
           "%.1f frames/stack, %.1f bytes/frame name\n",
           files[0], stacks_b, bytes_b, n_used,
           (gdouble) frame_refs / stacks_b, name_bytes / frame_refs);
  g_print ("%s: %u stacks, %" G_GUINT64_FORMAT " bytes\n", files[1], stacks_c, bytes_c);

  g_free (used);
  g_free (order);
  g_free (gen.set);
  g_array_unref (gen.frames);
  g_array_unref (gen.stacks);
  g_free (gen.name_lens);
  g_strfreev (gen.names);
  return 0;
}
