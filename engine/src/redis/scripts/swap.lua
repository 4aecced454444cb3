-- Replaces a period's projection with a freshly rebuilt copy, atomically: readers see either the
-- old ranking or the new one, never a half-built one.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank          ZSET  live ranking
-- KEYS[2]  <prefix>:{<board>:<period>}:ver           HASH  live versions
-- KEYS[3]  <prefix>:{<board>:<period>}:meta          HASH  vsum
-- KEYS[4]  <prefix>:{<board>:<period>}:rebuild:rank  ZSET  the rebuilt ranking (may be absent)
-- KEYS[5]  <prefix>:{<board>:<period>}:rebuild:ver   HASH  the rebuilt versions (may be absent)
-- KEYS[6]  <prefix>:{<board>:<period>}:public        STRING present while publicly frozen: the
--          rebuilt ranking then replaces the live one, and the public view stays
-- KEYS[7]  <prefix>:{<board>:<period>}:live          ZSET  (see project.lua)
-- ARGV[1]  sum of the rebuilt versions (hidden members included: their versions are in
--          rebuild:ver, but they are not in rebuild:rank)
-- Returns  1
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
return 1
