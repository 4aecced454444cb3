-- wrk script for scripts/bench-read: reports a run's figures in one line, and (around-me mode)
-- asks for the neighbourhood of a different random member on every request.
--
-- Environment:
--   BENCH_AROUND_MEMBERS  N > 0: request BENCH_AROUND_BASE/m:<12-digit id in 0..N-1>/around?radius=R
--                         (the member names scripts/bench/read/load_members.py loads);
--                         unset or 0: request the URL given to wrk, unchanged
--   BENCH_AROUND_BASE     path up to the member, e.g. /api/v1/boards/bench/periods/current/members
--   BENCH_AROUND_RADIUS   default 2
--   BENCH_ACCEPT_ENCODING sent as Accept-Encoding when set (e.g. "br, gzip", as browsers ask)
--   BENCH_COOKIE          sent as Cookie when set (e.g. a "me" link's laurel_me=…)
--
-- done() prints one line for the script to parse:
--   RESULT requests=… non2xx=… socket_errors=… duration_us=… p50_us=… p99_us=… mean_us=…

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local members = tonumber(os.getenv("BENCH_AROUND_MEMBERS") or "0")

local accept_encoding = os.getenv("BENCH_ACCEPT_ENCODING")
if accept_encoding and accept_encoding ~= "" then
  wrk.headers["Accept-Encoding"] = accept_encoding
end

local cookie = os.getenv("BENCH_COOKIE")
if cookie and cookie ~= "" then
  wrk.headers["Cookie"] = cookie
end

if members > 0 then
  local base = assert(os.getenv("BENCH_AROUND_BASE"), "BENCH_AROUND_BASE is not set")
  local suffix = "/around?radius=" .. (os.getenv("BENCH_AROUND_RADIUS") or "2")

  function init(args)
    math.randomseed(os.time() * 1000 + (tid or 0))
  end

  function request()
    return wrk.format(nil, string.format("%s/m:%012d%s", base, math.random(0, members - 1), suffix))
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d non2xx=%d socket_errors=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%d\n",
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
