-- Replaces a period's projection with a freshly rebuilt copy, atomically: readers see either the
-- old ranking or the new one, never a half-built one.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank          ZSET  live ranking
-- KEYS[2]  <prefix>:{<board>:<period>}:ver           HASH  live versions
-- KEYS[3]  <prefix>:{<board>:<period>}:meta          HASH  vsum, floor
-- KEYS[4]  <prefix>:{<board>:<period>}:rebuild:rank  ZSET  the rebuilt ranking (may be absent)
-- KEYS[5]  <prefix>:{<board>:<period>}:rebuild:ver   HASH  the rebuilt versions (may be absent)
-- KEYS[6]  <prefix>:{<board>:<period>}:public        STRING present while publicly frozen: the
--          rebuilt ranking then replaces the live one, and the public view stays
-- KEYS[7]  <prefix>:{<board>:<period>}:live          ZSET  (see project.lua)
-- ARGV[1]  sum of the rebuilt versions (hidden members included: their versions are in
--          rebuild:ver, but they are not in rebuild:rank)
-- ARGV[2]  a bounded ranking's floor (bounded.lua): the score of the best entry the ledger has
--          beyond the rebuilt members; '' when the rebuilt ranking holds everyone
-- ARGV[3]  that entry's member
-- Returns  1
-- `ranks_before` comes from floor.lua, prepended at load.
local targets = { KEYS[1], KEYS[2] }
if redis.call('EXISTS', KEYS[6]) == 1 then
  targets[1] = KEYS[7]
end
for i = 1, 2 do
  -- UNLINK first: RENAME over an existing key frees the old value on the main thread, and a
  -- ranking of a million members takes Redis half a second to free.
  redis.call('UNLINK', targets[i])
  if redis.call('EXISTS', KEYS[i + 3]) == 1 then
    redis.call('RENAME', KEYS[i + 3], targets[i])
  end
end
redis.call('HSET', KEYS[3], 'vsum', ARGV[1])
-- While publicly frozen the floor also guards the public view, which keeps what it held: it may
-- only rise then.
local floor = redis.call('HMGET', KEYS[3], 'floor', 'floor_member')
if targets[1] == KEYS[7] and floor[1] then
  if ARGV[2] ~= '' and ranks_before(ARGV[2], ARGV[3], floor[1], floor[2]) then
    redis.call('HSET', KEYS[3], 'floor', ARGV[2], 'floor_member', ARGV[3])
  end
elseif ARGV[2] == '' then
  redis.call('HDEL', KEYS[3], 'floor', 'floor_member')
else
  redis.call('HSET', KEYS[3], 'floor', ARGV[2], 'floor_member', ARGV[3])
end
-- The mark rankings trimmed before floors were kept carry (floor.lua); the floor replaces it.
redis.call('HDEL', KEYS[3], 'trimmed')
return 1
