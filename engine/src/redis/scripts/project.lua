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

-- A bounded board (keep_top K > 0) keeps only its best K members: the rest leave the ranking and
-- their versions leave the version hash, so both stay bounded (the ledger keeps everyone, and
-- reads below K come from it). A trimmed member's later write has no version here to compare
-- with; it is admitted if it ranks within K: projections carry the ledger's absolute total, so an
-- in-order write is right. Not guarded (known gap): two projections of one member reordered
-- across rounds, the newer one trimmed at once (its version with it), the older one ranking
-- within K — the older total shows until the member's next write or a rebuild. Closing it needs
-- the ledger's version of such a newcomer checked after the call.
-- Once members were trimmed, a kept member whose score falls (or who is hidden) may leave its
-- place to a trimmed one Redis no longer knows: `refill` in :meta then asks the reconciler to
-- put the ledger's best K back (`Engine::reconcile_once`).
local function lowered(ranking, keep, member, score)
  if keep <= 0 or redis.call('HEXISTS', KEYS[3], 'trimmed') == 0 then
    return
  end
  local old = redis.call('ZSCORE', ranking, member)
  if old and (score == nil or tonumber(score) < tonumber(old)) then
    redis.call('HSET', KEYS[3], 'refill', '1')
  end
end
local function trim(ranking, keep)
  if keep <= 0 then
    return
  end
  local extra = redis.call('ZCARD', ranking) - keep
  if extra <= 0 then
    return
  end
  local out = redis.call('ZRANGE', ranking, 0, extra - 1)
  local dropped = 0
  for _, member in ipairs(out) do
    dropped = dropped + tonumber(redis.call('HGET', KEYS[2], member) or '0')
    redis.call('HDEL', KEYS[2], member)
  end
  redis.call('HINCRBY', KEYS[3], 'vsum', -dropped)
  redis.call('ZREMRANGEBYRANK', ranking, 0, extra - 1)
  redis.call('HSET', KEYS[3], 'trimmed', '1')
end
local stored = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local version = tonumber(ARGV[2])
if version <= stored then
  return 0
end
local ranking = KEYS[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
  ranking = KEYS[5]
end
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
return 1
