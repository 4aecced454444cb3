"""Raw SQLite insert baselines for scripts/bench-ingest (Python standard library only).

Two shapes, each in transactions of BATCH events, with the ledger's settings (WAL,
synchronous=NORMAL), for about SECONDS seconds:

- plain: a fresh database file, rows with a random unique text primary key plus a few small
  columns, one INSERT per row — the cheapest insert of a unique event.
- ledger: a database that `laurel migrate` has just made (the ledger's own tables and indexes;
  Python's SQLite may be too old to run the migrations itself), and per transaction the
  statements a group-commit round makes for point events on one board: BEGIN IMMEDIATE, the ids
  looked up in `entries` and `late_entries`, the members' totals read, the period row read, the
  entries inserted (one multi-row INSERT) and the totals upserted (one multi-row upsert, members
  merged), COMMIT. That is what the store allows for the rows Laurel keeps, without HTTP, JSON,
  Redis or Laurel.

Only the time spent inside SQLite is counted, from BEGIN to COMMIT (in the ledger shape that
includes adding each event's delta to its total between the reads and the writes, a few dict
operations); the ids and members are drawn before each transaction starts. Prints one line:

    RESULT rows=… seconds=… rows_per_s=… p50_us=… p99_us=…

where p50/p99 are the latencies of one transaction (BATCH events).

usage: python3 sqlite_baseline.py DB_PATH BATCH SECONDS [plain|ledger]
"""

import os
import sqlite3
import sys
import time

BOARD = "bench"
PERIOD = "2026-W01"
MEMBERS = 10000


def connect(path: str, fresh: bool) -> sqlite3.Connection:
    for suffix in ("", "-wal", "-shm") if fresh else ():
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass
    con = sqlite3.connect(path, isolation_level=None)  # autocommit: BEGIN/COMMIT below
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    return con


def member() -> str:
    return "u%d" % (int.from_bytes(os.urandom(2), "little") % MEMBERS + 1)


def plain(con: sqlite3.Connection, batch: int):
    # Shaped like a ledger entry: a random unique text key plus a few small columns.
    con.execute(
        "CREATE TABLE raw_events (event_id TEXT PRIMARY KEY, member TEXT NOT NULL,"
        " delta INTEGER NOT NULL, recorded_at INTEGER NOT NULL)"
    )
    insert = "INSERT INTO raw_events (event_id, member, delta, recorded_at) VALUES (?, ?, ?, ?)"

    def transaction() -> float:
        now = time.time_ns() // 1000
        items = [(os.urandom(16).hex(), member(), 1, now) for _ in range(batch)]
        t0 = time.perf_counter()
        con.execute("BEGIN")
        con.executemany(insert, items)
        con.execute("COMMIT")
        return time.perf_counter() - t0

    return transaction


def ledger(con: sqlite3.Connection, batch: int):
    # As the ledger's connections (engine/src/ledger/mod.rs); SQLite checkpoints by default, as in
    # the plain shape.
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("PRAGMA cache_size = -65536")
    now = time.time_ns() // 1000
    con.execute(
        "INSERT INTO boards (slug, title, cadence, time_zone, operator, tie_policy, min_points,"
        " max_points, tie_base, freeze_grace_seconds, created_at)"
        " VALUES (?, 'Bench', 'weekly', 'UTC', 'incr', 'shared', -1000000000, 1000000000, 1, 0, ?)",
        (BOARD, now),
    )
    con.execute("INSERT INTO periods (board, period, state) VALUES (?, ?, 'open')", (BOARD, PERIOD))

    # The statements of a round, as engine/src/ledger (entries.rs, totals.rs, locks.rs) builds
    # them for `batch` point events.
    values = ", ".join(["(?)"] * batch)
    seen = (
        "SELECT v.column1, COALESCE((SELECT 1 FROM entries t WHERE t.board = ? AND t.external_id = v.column1), 0),"
        " COALESCE((SELECT 1 FROM late_entries t WHERE t.board = ? AND t.external_id = v.column1), 0)"
        " FROM (VALUES %s) AS v" % values
    )
    period = "SELECT state, next_seq FROM periods WHERE board = ? AND period = ?"
    entries_prefix = (
        "INSERT INTO entries (board, period, member, kind, external_id, delta, value, set_version,"
        " occurred_at, recorded_at, metadata, reach_seq, actor, reason) VALUES "
    )
    entries = entries_prefix + ", ".join(["(?, ?, ?, 'point', ?, 1, NULL, NULL, ?, ?, NULL, 0, NULL, NULL)"] * batch)
    entries += " ON CONFLICT (board, external_id) DO NOTHING"

    def totals_read(n: int) -> str:
        one = (
            "SELECT member, points, version, set_version, reach_seq, hidden FROM totals"
            " WHERE board = ? AND period = ? AND member = ?"
        )
        return " UNION ALL ".join([one] * n)

    def totals_store(n: int) -> str:
        return (
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) VALUES "
            + ", ".join(["(?, ?, ?, ?, ?, 0, 0, ?)"] * n)
            + " ON CONFLICT (board, period, member) DO UPDATE SET points = excluded.points,"
            " version = excluded.version, reach_seq = excluded.reach_seq,"
            " set_version = excluded.set_version, updated_at = excluded.updated_at"
        )

    counter = [0]

    def transaction() -> float:
        now = time.time_ns() // 1000
        events = []
        for _ in range(batch):
            counter[0] += 1
            events.append(("run-1-%d" % counter[0], member()))
        members = sorted({m for _, m in events})
        read_params = [x for m in members for x in (BOARD, PERIOD, m)]
        t0 = time.perf_counter()
        con.execute("BEGIN IMMEDIATE")
        con.execute(seen, [BOARD, BOARD] + [e for e, _ in events]).fetchall()
        totals = {r[0]: [r[1], r[2]] for r in con.execute(totals_read(len(members)), read_params)}
        con.execute(period, (BOARD, PERIOD)).fetchone()
        rows = []
        for event_id, m in events:
            total = totals.setdefault(m, [0, 0])
            total[0] += 1
            total[1] += 1
            rows += (BOARD, PERIOD, m, event_id, now, now)
        con.execute(entries, rows)
        stored = [x for m in members for x in (BOARD, PERIOD, m, totals[m][0], totals[m][1], now)]
        con.execute(totals_store(len(members)), stored)
        con.execute("COMMIT")
        return time.perf_counter() - t0

    return transaction


def main() -> None:
    path, batch, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    shape = sys.argv[4] if len(sys.argv) > 4 else "plain"
    if shape == "ledger":
        transaction = ledger(connect(path, fresh=False), batch)
    else:
        transaction = plain(connect(path, fresh=True), batch)
    rows = 0
    busy = 0.0
    latencies = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        dt = transaction()
        busy += dt
        latencies.append(dt)
        rows += batch
    latencies.sort()

    def pct(p: float) -> int:
        return int(latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] * 1e6)

    print(
        "RESULT rows=%d seconds=%.3f rows_per_s=%.0f p50_us=%d p99_us=%d"
        % (rows, busy, rows / busy, pct(50), pct(99))
    )


if __name__ == "__main__":
    main()
