-- Pins a copy of a period's ranking for stable paging: its pages and rank numbers never change
-- until it expires.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank            ZSET   the live ranking
-- KEYS[2]  <prefix>:{<board>:<period>}:snap:<id>       ZSET   the copy
-- KEYS[3]  <prefix>:{<board>:<period>}:snap:<id>:info  STRING its member count; marks it alive
-- ARGV[1]  time to live, seconds
-- Returns  the number of members in the copy.
local total = redis.call('ZCARD', KEYS[1])
if total > 0 then
  redis.call('COPY', KEYS[1], KEYS[2], 'REPLACE')
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
-- An empty ranking has no key to copy; the info key alone says the snapshot exists.
redis.call('SET', KEYS[3], total, 'EX', ARGV[1])
return total
