# shares.py SECONDS THREADS TRUTH: hot() and warm() take about 70 % and
# 30 % of the CPU time of each of THREADS threads (the main thread when 0)
# for SECONDS of CPU time each; what each really took (time.thread_time)
# is written to TRUTH as "truth hot S" and "truth warm S". warm() runs
# inside a generator and hot() inside a coroutine, so their frames are
# reached through those too. The amount of work changes at random from
# one round to the next, so that the timer ticks do not keep meeting the
# loop at the same point.
import asyncio
import random
import sys
import threading
import time


def hot(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def warm(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def warm_steps(n):
    for _ in range(3):
        yield warm(n)


async def hot_task(n):
    return hot(n)


def work(seconds, totals, lock):
    h = w = 0.0
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        n = random.randint(500, 1500)
        t0 = time.thread_time()
        coro = hot_task(7 * n)
        try:
            coro.send(None)
        except StopIteration:
            pass
        t1 = time.thread_time()
        for _ in warm_steps(n):
            pass
        t2 = time.thread_time()
        h += t1 - t0
        w += t2 - t1
    with lock:
        totals[0] += h
        totals[1] += w


def main():
    seconds = float(sys.argv[1])
    n_threads = int(sys.argv[2])
    totals = [0.0, 0.0]
    lock = threading.Lock()
    if n_threads == 0:
        work(seconds, totals, lock)
    else:
        threads = [threading.Thread(target=work, args=(seconds, totals, lock))
                   for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    with open(sys.argv[3], "w") as f:
        f.write("truth hot %f\ntruth warm %f\n" % (totals[0], totals[1]))


main()
