# py-bench.py N: a fixed amount of pure-Python work (calls, loops,
# dictionaries, strings; a few frames deep), then "cpu S" with the
# process's CPU time (time.process_time, so time in the sampler's SIGPROF
# handler counts). tools/bench.sh runs it alone and recorded.
import sys
import time


def leaf(i):
    return (i * 7) % 13


def middle(n):
    d = {}
    for i in range(n):
        d[i % 97] = d.get(i % 97, 0) + leaf(i)
    return sum(d.values())


def words(n):
    return len(" ".join(str(i) for i in range(n)).split())


def top(rounds):
    s = 0
    for _ in range(rounds):
        s += middle(2000) + words(500)
    return s


top(int(sys.argv[1]))
print("cpu %.4f" % time.process_time())
