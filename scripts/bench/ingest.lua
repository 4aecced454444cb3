-- wrk script for scripts/bench-ingest: POSTs point events to Laurel's ingest API.
--
-- Every event id is unique (run nonce, wrk thread number, per-thread counter), so each event is
-- a real write ("applied"), never a cheaper "duplicate". Members are spread uniformly at random.
--
-- Environment:
--   BENCH_TOKEN    the ingest key (Authorization: Bearer …)                       required
--   BENCH_BATCH    events per request; 0 = one event object, N = {"events":[N]}    default 0
--   BENCH_MEMBERS  members u1 … uN to spread the events over                     default 10000
--   BENCH_RUN      a nonce that makes ids unique across runs                      default os.time()
--   BENCH_HOSTS    host:port,host:port,…: thread i connects to host i (round robin), so the
--                  load is split over several instances; default: the URL's host
--   BENCH_SEGMENTS dimension:values,…  (province:30,class:500): each event names the member's
--                  value in each dimension, derived from the member (so never a conflict);
--                  default none
--
-- done() prints one line for the script to parse:
--   RESULT requests=… non2xx=… socket_errors=… duration_us=… p50_us=… p99_us=… mean_us=…

local threads = {}

local hosts = {}
for host in (os.getenv("BENCH_HOSTS") or ""):gmatch("[^,]+") do
  table.insert(hosts, host)
end

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
  if #hosts > 0 then
    local host, port = hosts[(#threads - 1) % #hosts + 1]:match("^(.+):(%d+)$")
    thread.addr = wrk.lookup(host, port)[1]
  end
end

local batch, members, prefix
local counter = 0
-- { {name, values}, … } from BENCH_SEGMENTS.
local dimensions = {}

function init(args)
  batch = tonumber(os.getenv("BENCH_BATCH") or "0")
  members = tonumber(os.getenv("BENCH_MEMBERS") or "10000")
  local run = os.getenv("BENCH_RUN") or tostring(os.time())
  prefix = run .. "-" .. tostring(tid) .. "-"
  for name, values in (os.getenv("BENCH_SEGMENTS") or ""):gmatch("([%w_-]+):(%d+)") do
    table.insert(dimensions, { name, tonumber(values) })
  end
  math.randomseed(os.time() * 1000 + tid)
  wrk.method = "POST"
  wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("BENCH_TOKEN"), "BENCH_TOKEN is not set")
  wrk.headers["Content-Type"] = "application/json"
end

-- The member's segment values: one per dimension, a function of the member alone.
local function segments(member)
  if #dimensions == 0 then
    return ""
  end
  local named = {}
  for i, d in ipairs(dimensions) do
    named[i] = '"' .. d[1] .. '":"' .. d[1]:sub(1, 1) .. ((member * (2 * i + 1)) % d[2]) .. '"'
  end
  return ',"segments":{' .. table.concat(named, ",") .. "}"
end

local function event()
  counter = counter + 1
  local member = math.random(members)
  return '{"event_id":"' .. prefix .. counter .. '","member":"u' .. member .. '","delta":1' .. segments(member) .. "}"
end

function request()
  local body
  if batch == 0 then
    body = event()
  else
    local items = {}
    for i = 1, batch do
      items[i] = event()
    end
    body = '{"events":[' .. table.concat(items, ",") .. ']}'
  end
  return wrk.format(nil, nil, nil, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d non2xx=%d socket_errors=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%d\n",
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
