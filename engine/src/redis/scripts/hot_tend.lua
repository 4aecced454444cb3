-- Tends a hot board's buckets after a snapshot: frees buckets that have left the window with
-- UNLINK (big keys are reclaimed off the main thread; their TTL would remove them later anyway)
-- and reports what monitoring needs (docs/DESIGN.md, "Bucket TTLs": a bucket without a TTL is
-- the smell of a broken EXPIRE NX, and an ever-growing bucket of a missing size bound).
--
-- KEYS[1]  <prefix>:hot:{<board>}   the board's namespace (see hot_hit.lua)
-- ARGV[1]  now in milliseconds, or '' for the server's TIME
-- ARGV[2]  bucket length, ms
-- ARGV[3]  buckets in the window
-- Returns  { members in the current bucket, buckets of the window without a TTL, buckets unlinked }
local ns = KEYS[1]
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local bucket_ms, window = tonumber(ARGV[2]), tonumber(ARGV[3])
local newest = math.floor(now / bucket_ms)
local function key(b)
  return ns .. ':' .. string.format('%d', b)
end

local without_ttl = 0
for b = newest - window + 1, newest do
  if redis.call('PTTL', key(b)) == -1 then
    without_ttl = without_ttl + 1
  end
end
-- One window's worth of buckets behind the window: what passes between two runs.
local unlinked = 0
for b = newest - 2 * window + 1, newest - window do
  unlinked = unlinked + redis.call('UNLINK', key(b))
end
return { redis.call('ZCARD', key(newest)), without_ttl, unlinked }
