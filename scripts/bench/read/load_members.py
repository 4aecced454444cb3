#!/usr/bin/env python3
"""Writes RESP `ZADD` commands for scripts/bench-read to stdout, for `redis-cli --pipe`.

usage: load_members.py KEY MEMBERS [MAX_SCORE] [SEED]

Members are m:000000000000 ... m:<MEMBERS-1, 12 digits>: the names redis-benchmark's
`m:__rand_int__` (with -r MEMBERS) produces, so the raw ZREVRANK baseline and the around-me
requests look up the same members. Scores are random integers 0..MAX_SCORE (default 100000), so a
million members hold many ties; the seed (default 42) makes every run load the same board. Each
command adds 1000 members. Prints the number of distinct scores to stderr.
"""

import random
import sys

BATCH = 1000


def bulk(arg: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(arg), arg)


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    key = sys.argv[1].encode()
    members = int(sys.argv[2])
    max_score = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 42)
    out = sys.stdout.buffer
    head = bulk(b"ZADD") + bulk(key)
    scores = set()
    for start in range(0, members, BATCH):
        n = min(BATCH, members - start)
        parts = [b"*%d\r\n" % (2 + 2 * n), head]
        for i in range(start, start + n):
            score = rng.randint(0, max_score)
            scores.add(score)
            parts.append(bulk(b"%d" % score))
            parts.append(bulk(b"m:%012d" % i))
        out.write(b"".join(parts))
    out.flush()
    print(f"{members} members, {len(scores)} distinct scores", file=sys.stderr)


if __name__ == "__main__":
    main()
