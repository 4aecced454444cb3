-- Puts an assembled public view in place, unless someone else changed the marker meanwhile (a
-- reveal, or another assembly): then this one is dropped and the reconciler converges.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank            ZSET  the ranking the public reads
-- KEYS[2]  <prefix>:{<board>:<period>}:public          STRING the marker
-- KEYS[3]  <prefix>:{<board>:<period>}:public:staging  ZSET  the assembled view (absent: empty)
-- ARGV[1]  the marker's value public_begin.lua set
-- ARGV[2]  its value once the view is in place (`<frozen_at>.<steps>`)
-- Returns  1 when put in place, 0 when the marker had changed
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  redis.call('UNLINK', KEYS[3])
  return 0
end
-- UNLINK first: RENAME over the old view would free it on Redis's main thread.
redis.call('UNLINK', KEYS[1])
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('RENAME', KEYS[3], KEYS[1])
end
redis.call('SET', KEYS[2], ARGV[2])
return 1
