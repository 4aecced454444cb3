"""Floods each public route of a running laurel with anonymous requests and prints, per route:
requests/s, p99, Redis's longest PING wait meanwhile and Redis's memory growth.

usage: abuse.py BASE_URL REDIS_PORT BOARD PERIOD MEMBERS TIE_POINTS SECONDS CONNECTIONS LOADED_FROM LOADED_TO

LOADED_FROM and LOADED_TO (Unix seconds) frame the loading: the as-of routes ask for instants
inside it, so each asks for a different, non-empty past ranking.

Each route runs for SECONDS on CONNECTIONS keep-alive connections (one thread each), while one
more thread sends PING to Redis every 5 ms and keeps the longest wait. Memory is Redis's
used_memory before and after the route's flood (before anything expires). Standard library only.
"""

import http.client
import json
import random
import socket
import sys
import threading
import time
import urllib.parse

base, redis_port, board, period, members, tie_points, seconds, connections, loaded_from, loaded_to = sys.argv[1:11]
redis_port, members, tie_points = int(redis_port), int(members), int(tie_points)
seconds, connections = float(seconds), int(connections)
loaded_from, loaded_to = float(loaded_from), float(loaded_to)
host = urllib.parse.urlparse(base)
p = f"/api/v1/boards/{board}/periods/{period}"


def member(i):
    return f"m{i:07d}"


def instant():
    # A past instant inside the loading, to the microsecond: every request a different replay.
    t = time.gmtime(random.uniform(loaded_from, loaded_to))
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{random.randrange(1_000_000):06d}Z"


def forged_cursor():
    # A cursor naming a member that does not exist, at the points of the biggest tie.
    return f"{tie_points}~zz-nobody-{random.randrange(1 << 30)}".encode().hex()


ROUTES = [
    ("top-10", "GET", lambda: f"{p}/top?limit=10"),
    ("deep offset page", "GET", lambda: f"{p}/entries?offset={random.randrange(members)}&limit=200"),
    ("forged cursor in a tie", "GET", lambda: f"{p}/entries?after={forged_cursor()}&limit=200"),
    ("pin a snapshot", "POST", lambda: f"{p}/snapshots"),
    ("around-me r=50", "GET", lambda: f"{p}/members/{member(random.randrange(members))}/around?radius=50"),
    ("count", "GET", lambda: f"{p}/count?min_points={random.randrange(tie_points * 2)}"),
    ("ranks of 100", "GET", lambda: f"{p}/ranks?members=" + ",".join(member(random.randrange(members)) for _ in range(100))),
    ("member events", "GET", lambda: f"{p}/members/{member(random.randrange(members))}/events?limit=200"),
    ("board page", "GET", lambda: f"/b/{board}"),
    ("as-of, random instants", "GET", lambda: f"{p}/as-of?at={instant()}&limit=200"),
    ("board page at an instant", "GET", lambda: f"/b/{board}/{period}?at={instant()}"),
]


def redis_call(sock, *args):
    out = f"*{len(args)}\r\n" + "".join(f"${len(str(a))}\r\n{a}\r\n" for a in args)
    sock.sendall(out.encode())
    data = b""
    while b"\r\n" not in data:
        data += sock.recv(1 << 20)
    head, _, rest = data.partition(b"\r\n")
    if not head.startswith(b"$"):
        return head
    size = int(head[1:])
    while len(rest) < size + 2:
        rest += sock.recv(1 << 20)
    return rest[:size]


def used_memory():
    with socket.create_connection(("127.0.0.1", redis_port)) as s:
        info = redis_call(s, "INFO", "memory").decode()
    return int(next(l for l in info.split("\r\n") if l.startswith("used_memory:")).split(":")[1])


def flood(name, method, path, deadline, latencies, statuses, lock):
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    local, codes = [], {}
    while time.monotonic() < deadline:
        t0 = time.monotonic()
        try:
            conn.request(method, path(), headers={"content-length": "0"} if method == "POST" else {})
            res = conn.getresponse()
            res.read()
            codes[res.status] = codes.get(res.status, 0) + 1
        except (OSError, http.client.HTTPException):
            codes["error"] = codes.get("error", 0) + 1
            conn.close()
            conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
        local.append(time.monotonic() - t0)
    with lock:
        latencies.extend(local)
        for k, v in codes.items():
            statuses[k] = statuses.get(k, 0) + v


def pinger(stop, worst):
    with socket.create_connection(("127.0.0.1", redis_port)) as s:
        while not stop.is_set():
            t0 = time.monotonic()
            redis_call(s, "PING")
            worst[0] = max(worst[0], time.monotonic() - t0)
            time.sleep(0.005)


rows = []
for name, method, path in ROUTES:
    before = used_memory()
    latencies, statuses, lock = [], {}, threading.Lock()
    stop, worst = threading.Event(), [0.0]
    ping = threading.Thread(target=pinger, args=(stop, worst))
    ping.start()
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    threads = [threading.Thread(target=flood, args=(name, method, path, deadline, latencies, statuses, lock))
               for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    stop.set()
    ping.join()
    growth = used_memory() - before
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1] if latencies else float("nan")
    rows.append({
        "route": name, "requests_per_s": len(latencies) / elapsed, "p99_ms": p99 * 1000,
        "longest_ping_ms": worst[0] * 1000, "memory_growth_mb": growth / 1e6,
        "statuses": {str(k): v for k, v in sorted(statuses.items(), key=str)},
    })
    r = rows[-1]
    print(f"{name:24} {r['requests_per_s']:8.0f} req/s  p99 {r['p99_ms']:7.1f} ms  "
          f"longest PING {r['longest_ping_ms']:6.1f} ms  memory {r['memory_growth_mb']:+8.1f} MB  "
          f"{r['statuses']}", flush=True)

print(json.dumps(rows), file=sys.stderr)
