-- wrk script for scripts/bench-hot: POSTs a hit for a random member of BENCH_HOT_MEMBERS on every
-- request, and reports the run's figures in one line.
--
-- Environment:
--   BENCH_HOT_MEMBERS  N > 0: hits name members t:<6-digit id in 0..N-1>; 0 or unset: plain GETs of
--                      the URL given to wrk (the top read)
--   BENCH_HOT_PATH     the hits path, e.g. /api/v1/boards/bench/hits
--   BENCH_HOT_TOKEN    the bearer token (an admin token or an ingest key for the board)
--
-- done() prints one line for the script to parse:
--   RESULT requests=… non2xx=… socket_errors=… duration_us=… p50_us=… p99_us=… mean_us=…

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local members = tonumber(os.getenv("BENCH_HOT_MEMBERS") or "0")

if members > 0 then
  local path = assert(os.getenv("BENCH_HOT_PATH"), "BENCH_HOT_PATH is not set")
  local headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("BENCH_HOT_TOKEN"), "BENCH_HOT_TOKEN is not set"),
    ["Content-Type"] = "application/json",
  }

  function init(args)
    math.randomseed(os.time() * 1000 + (tid or 0))
  end

  function request()
    local body = string.format('{"member":"t:%06d"}', math.random(0, members - 1))
    return wrk.format("POST", path, headers, body)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d non2xx=%d socket_errors=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%d\n",
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
