-- Ends a public freeze (a reveal): the live ranking becomes the one the public reads, at once.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank            ZSET  the public view
-- KEYS[2]  <prefix>:{<board>:<period>}:live            ZSET  the live ranking
-- KEYS[3]  <prefix>:{<board>:<period>}:public          STRING the marker
-- KEYS[4]  <prefix>:{<board>:<period>}:public:staging  ZSET
-- Returns  1 when a view was taken down, 0 when none was up
if redis.call('EXISTS', KEYS[3]) == 0 then
  return 0
end
-- UNLINK first: RENAME over the public view would free it on Redis's main thread.
redis.call('UNLINK', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[1])
end
redis.call('UNLINK', KEYS[3], KEYS[4])
return 1
