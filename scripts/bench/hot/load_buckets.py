#!/usr/bin/env python3
"""Writes Redis protocol for scripts/bench-hot: BUCKETS time buckets of a hot board, each a ZSET of
MEMBERS members t:000000… with random counts 1..1000, ending with the bucket NEWEST, each with a
TTL (as the hit script would set it). Pipe into `redis-cli --pipe`.

usage: load_buckets.py NAMESPACE NEWEST BUCKETS MEMBERS TTL_SECONDS
"""
import random
import sys


def command(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def main():
    namespace, newest, buckets, members, ttl = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    rng = random.Random(7)
    write = sys.stdout.buffer.write
    for bucket in range(newest - buckets + 1, newest + 1):
        key = f"{namespace}:{bucket}"
        for start in range(0, members, 1000):
            args = ["ZADD", key]
            for i in range(start, min(start + 1000, members)):
                args += [rng.randint(1, 1000), f"t:{i:06d}"]
            write(command(*args))
        write(command("EXPIRE", key, ttl))


if __name__ == "__main__":
    main()
