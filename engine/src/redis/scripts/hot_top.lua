-- Merges a hot board's window: the last N buckets (N = the number of weights) with ZUNION, which
-- returns the result without storing it (no temporary keys), weighted per bucket for decay and
-- aggregated with SUM (counts) or MAX (best scores; a sum would count a score once per bucket).
--
-- KEYS[1]  <prefix>:hot:{<board>}   the board's namespace; the buckets <ns>:<bucket> share its
--          hash tag (see hot_hit.lua)
-- ARGV[1]  now in milliseconds, or '' for the server's TIME
-- ARGV[2]  bucket length, ms
-- ARGV[3]  'sum' | 'max'
-- ARGV[4]  entries wanted
-- ARGV[5…] one weight per bucket of the window, oldest first
-- Returns  { now_ms, member1, score1, … } best first (score descending, then member descending),
--          at most ARGV[4] entries.
local ns = KEYS[1]
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local bucket_ms, aggregate, limit = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local n = #ARGV - 4
local newest = math.floor(now / bucket_ms)

local args = { 'ZUNION', n }
for i = 1, n do
  args[#args + 1] = ns .. ':' .. string.format('%d', newest - n + i)
end
args[#args + 1] = 'WEIGHTS'
for i = 1, n do
  args[#args + 1] = ARGV[4 + i]
end
args[#args + 1] = 'AGGREGATE'
args[#args + 1] = aggregate
args[#args + 1] = 'WITHSCORES'
local merged = redis.call(unpack(args))

-- ZUNION answers ascending; the best entries are at the end.
local out = { string.format('%d', now) }
local i = #merged - 1
while i >= 1 and #out < 2 * limit + 1 do
  out[#out + 1] = merged[i]
  out[#out + 1] = merged[i + 1]
  i = i - 2
end
return out
