# Baseline of the CPython 3.15 fixtures (tests/data/cpython/README.md).
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
    spin(0.25)


def old_func():
    spin(0.08)


def recurse(depth):
    if depth == 0:
        spin(0.05)
        return
    recurse(depth - 1)


def main():
    common_work()
    slow_path()
    old_func()
    recurse(3)
    spin(0.03)
    spin(0.03)
    shapes.area_loop(0.1)
    shapes.encode_loop(0.05)


main()
