-- Projects one member's ledger total onto a period's ranking, idempotently and order-tolerantly.
-- The value is absolute (never an increment) and guarded by the ledger version, so a replayed or
-- reordered projection can never move a score backwards — nor bring back a hidden member: hiding
-- is a version of the total like any other, and an older (visible) version is refused.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank   ZSET  member -> encoded score
-- KEYS[2]  <prefix>:{<board>:<period>}:ver    HASH  member -> projected ledger version
-- KEYS[3]  <prefix>:{<board>:<period>}:meta   HASH  vsum -> sum of all projected versions
-- KEYS[4]  <prefix>:{<board>:<period>}:public STRING present while publicly frozen: then KEYS[1]
--          is the public view and the live ranking is
-- KEYS[5]  <prefix>:{<board>:<period>}:live   ZSET  (so no write ever reaches the public view)
-- ARGV[1]  member id
-- ARGV[2]  ledger version of the total (integer, >= 1)
-- ARGV[3]  encoded score (integer, |score| <= 2^53)
-- ARGV[4]  '1' when the member is hidden (out of the ranking; its version is still recorded),
--          '0' otherwise
-- ARGV[5]  keep_top: the most members the ranking keeps (0: unbounded)
-- Returns  1 when the version was written, 0 when the stored version was already >= ARGV[2].

-- `lowered`, `trim`, `unguarded` and `check_later` (bounded boards, keep_top) come from
-- bounded.lua, prepended at load.
local stored = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local version = tonumber(ARGV[2])
if version <= stored then
  return 0
end
local ranking = KEYS[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
  ranking = KEYS[5]
end
local blind = unguarded(tonumber(ARGV[5]), stored)
if ARGV[4] == '1' then
  lowered(ranking, tonumber(ARGV[5]), ARGV[1], nil)
  redis.call('ZREM', ranking, ARGV[1])
else
  lowered(ranking, tonumber(ARGV[5]), ARGV[1], ARGV[3])
  redis.call('ZADD', ranking, ARGV[3], ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
-- vsum lets the reconciler compare a whole period with the ledger's SUM(version) in one call;
-- hidden members count, so a hidden member's versions keep the two level.
redis.call('HINCRBY', KEYS[3], 'vsum', version - stored)
trim(ranking, tonumber(ARGV[5]))
if blind then
  check_later(ranking, ARGV[1])
end
return 1
