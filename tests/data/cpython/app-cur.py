# Current run of the CPython 3.15 fixtures (tests/data/cpython/README.md):
# slow_path is faster, old_func is gone, new_func is new, the recursion
# is one level deeper, main calls spin from other lines, and every line
# below moved (matching ignores line numbers).
import time

import shapes


def spin(seconds):
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1
    return n


def common_work():
    spin(0.15)


def slow_path():
    spin(0.12)


def new_func():
    spin(0.08)


def recurse(depth):
    if depth == 0:
        spin(0.05)
        return
    recurse(depth - 1)


def main():
    common_work()
    slow_path()
    new_func()
    recurse(4)
    spin(0.02)
    spin(0.02)
    spin(0.02)
    shapes.area_loop(0.1)
    shapes.encode_loop(0.05)


main()
