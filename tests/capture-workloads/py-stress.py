# py-stress.py SECONDS: for SECONDS of wall time, keeps creating and
# ending threads, generators and coroutines (asyncio tasks), so the frame
# chains a sampler reads change all the time. Prints "done N" at the end.
import asyncio
import sys
import threading
import time


def gen(n):
    for i in range(n):
        yield i * i


async def coro(n):
    s = 0
    for v in gen(n):
        s += v
        if v % 97 == 0:
            await asyncio.sleep(0)
    return s


async def many():
    return sum(await asyncio.gather(*(coro(200) for _ in range(20))))


def thread_body(k):
    total = 0
    for _ in range(k):
        total += sum(gen(300))
        total += asyncio.run(many()) if k % 2 else 0
    return total


def main():
    end = time.monotonic() + float(sys.argv[1])
    rounds = 0
    while time.monotonic() < end:
        threads = [threading.Thread(target=thread_body, args=(1 + i % 3,)) for i in range(4)]
        for t in threads:
            t.start()
        thread_body(1)
        for t in threads:
            t.join()
        rounds += 1
    print("done", rounds)


main()
