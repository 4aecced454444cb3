-- A rate limit shared by every instance: GCRA (engine/src/ratelimit.rs) with the cell's
-- theoretical arrival time (TAT) kept in Redis, on the Redis server's clock, so every instance
-- counts against one allowance.
--
-- KEYS[1]  <prefix>:rl:{k<id>} (an ingest key) or <prefix>:rl:{a<network>} (an anonymous client):
--          the TAT in µs since the epoch (absent: none yet)
-- ARGV[1]  one request's share of a second, µs (1 000 000 / rate)
-- ARGV[2]  how far ahead of now the TAT may run, µs (share × burst)
-- ARGV[3]  how many requests arrived together (engine/src/redis/grouped.rs; absent: 1)
-- Returns  {admitted, wait}: the first `admitted` requests are admitted (the TAT moves on by one
--          share each; the key expires when it no longer matters), the others are not, and wait
--          is the µs until the next one would be (0 when all were admitted). A refusal costs
--          nothing: n requests at once fare exactly as n calls in a row would.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local share, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local n = tonumber(ARGV[3]) or 1
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end
-- A request is admitted while its TAT, one share on, stays within `tolerance` of now.
local admitted = math.floor((now + tolerance - tat) / share)
if admitted > n then
  admitted = n
elseif admitted < 0 then
  admitted = 0
end
local wait = 0
if admitted > 0 then
  tat = tat + admitted * share
  redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.floor((tat - now) / 1000) + 1)
end
if admitted < n then
  wait = tat + share - tolerance - now
end
return {admitted, wait}
