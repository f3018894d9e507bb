# py-alloc.py: big() allocates 30 MiB and small() 10 MiB, in bytearrays
# of 64 KiB (below glibc's mmap threshold: CPython's allocator hands
# blocks that large to malloc), each dropped at once; the rounds
# alternate, so that neither runs in one stretch of the process.
def big():
    for _ in range(3):
        bytearray(64 * 1024)


def small():
    bytearray(64 * 1024)


def main():
    for _ in range(160):
        big()
        small()


main()
