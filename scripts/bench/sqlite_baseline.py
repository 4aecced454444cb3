"""Raw SQLite insert baseline for scripts/bench-ingest (Python standard library only).

Inserts rows with random unique text primary keys into a fresh database file, in transactions of
BATCH rows, with the ledger's settings (WAL, synchronous=NORMAL), for about SECONDS seconds.
Only the time spent inside SQLite (the inserts and the COMMIT) is counted; the random keys are made
before each transaction starts. Prints one line:

    RESULT rows=… seconds=… rows_per_s=… p50_us=… p99_us=…

where p50/p99 are the latencies of one transaction (BATCH rows).

usage: python3 sqlite_baseline.py DB_PATH BATCH SECONDS
"""

import os
import sqlite3
import sys
import time


def main() -> None:
    path, batch, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass
    con = sqlite3.connect(path, isolation_level=None)  # autocommit: BEGIN/COMMIT below
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    # Shaped like a ledger entry: a random unique text key plus a few small columns.
    con.execute(
        "CREATE TABLE raw_events (event_id TEXT PRIMARY KEY, member TEXT NOT NULL,"
        " delta INTEGER NOT NULL, recorded_at INTEGER NOT NULL)"
    )
    insert = "INSERT INTO raw_events (event_id, member, delta, recorded_at) VALUES (?, ?, ?, ?)"
    rows = 0
    busy = 0.0
    latencies = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = time.time_ns() // 1000
        items = [
            (os.urandom(16).hex(), "u%d" % (int.from_bytes(os.urandom(2), "little") % 10000 + 1), 1, now)
            for _ in range(batch)
        ]
        t0 = time.perf_counter()
        con.execute("BEGIN")
        con.executemany(insert, items)
        con.execute("COMMIT")
        dt = time.perf_counter() - t0
        busy += dt
        latencies.append(dt)
        rows += batch
    con.close()
    latencies.sort()

    def pct(p: float) -> int:
        return int(latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] * 1e6)

    print(
        "RESULT rows=%d seconds=%.3f rows_per_s=%.0f p50_us=%d p99_us=%d"
        % (rows, busy, rows / busy, pct(50), pct(99))
    )


if __name__ == "__main__":
    main()
