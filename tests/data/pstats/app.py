"""A small workload for the pstats fixtures (see make-fixtures.sh):
recursion, a function called from two places, a builtin, a method."""
import sys


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work(n):
    return sum(i * i % 7 for i in range(n))


class Parser:
    def parse(self, n):
        return work(n) + fib(15)


def render(n):
    return work(2 * n) + len(sorted(str(i) for i in range(n)))


def main(n):
    p = Parser()
    return sum(p.parse(n) + render(n) for _ in range(3))


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
