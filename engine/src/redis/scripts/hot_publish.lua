-- Publishes a hot board's snapshot unless one for the same or a later interval is already there:
-- the public list changes once per interval, even if two instances computed it.
--
-- KEYS[1]  <prefix>:hot:{<board>}:snapshot  HASH  seq -> interval number, list -> JSON
-- ARGV[1]  the snapshot's interval number
-- ARGV[2]  the JSON document
-- ARGV[3]  time to live, s (a board nobody snapshots any more does not keep an old list forever)
-- Returns  1 when published, 0 when an equal or newer snapshot was there.
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq'))
if seq and seq >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'list', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
