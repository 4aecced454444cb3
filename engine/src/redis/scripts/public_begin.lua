-- Starts putting a public (frozen) view in place (engine::public): from now on writes go to the
-- live ranking (project.lua, level.lua), so nothing written after this reaches the public view.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank            ZSET  the ranking the public reads
-- KEYS[2]  <prefix>:{<board>:<period>}:live            ZSET  the live ranking while frozen
-- KEYS[3]  <prefix>:{<board>:<period>}:public          STRING the marker
-- KEYS[4]  <prefix>:{<board>:<period>}:public:staging  ZSET  where the view is assembled
-- ARGV[1]  the marker's value while the view is assembled
-- Returns  1
if redis.call('EXISTS', KEYS[3]) == 0 then
  -- Not frozen yet: the ranking is the live one; keep it as such.
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('COPY', KEYS[1], KEYS[2], 'REPLACE')
  else
    redis.call('UNLINK', KEYS[2])
  end
end
redis.call('SET', KEYS[3], ARGV[1])
redis.call('UNLINK', KEYS[4])
return 1
