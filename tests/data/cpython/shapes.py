# A second module of the CPython 3.15 fixtures: a class method,
# allocations (CPython may show <GC> frames under them) and the standard
# library's json (its frames carry /usr/lib/python3.15/... paths).
import json
import time


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def area_loop(seconds):
    end = time.perf_counter() + seconds
    total = 0
    while time.perf_counter() < end:
        total += sum(Square(i).area() for i in range(50))
    return total


def encode_loop(seconds):
    end = time.perf_counter() + seconds
    doc = {"squares": [{"side": i, "area": Square(i).area()} for i in range(200)]}
    n = 0
    while time.perf_counter() < end:
        n += len(json.dumps(doc))
    return n
