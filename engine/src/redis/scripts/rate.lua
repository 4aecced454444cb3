-- An ingest key's rate limit, shared by every instance: GCRA (engine/src/ratelimit.rs) with the
-- key's theoretical arrival time (TAT) kept in Redis, on the Redis server's clock, so every
-- instance counts against one allowance.
--
-- KEYS[1]  <prefix>:rl:{k<id>}   the TAT in µs since the epoch (absent: none yet)
-- ARGV[1]  one request's share of a second, µs (1 000 000 / rate)
-- ARGV[2]  how far ahead of now the TAT may run, µs (share × burst)
-- Returns  0 when the request is admitted (the TAT moves on by one share; the key expires when
--          it no longer matters), else the µs to wait (nothing changes: a refusal costs nothing).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local share, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end
local next_tat = tat + share
local wait = next_tat - tolerance - now
if wait > 0 then
  return wait
end
redis.call('SET', KEYS[1], string.format('%d', next_tat), 'PX', math.floor((next_tat - now) / 1000) + 1)
return 0
