-- The bounded-board helpers of project.lua and level.lua, prepended to both when they are loaded
-- (`engine/src/redis/mod.rs`, `level.rs`), so the two scripts trim alike. They use the callers'
-- KEYS[2] (:ver) and KEYS[3] (:meta).
--
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
