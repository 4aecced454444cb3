-- Brings a batch of members level with the ledger: the same version guard as project.lua, for
-- many members in one call. Used by the write path and the reconciler; safe while writes
-- continue, because nothing is ever moved to an older version (nor a hidden member brought back).
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank   ZSET  member -> encoded score
-- KEYS[2]  <prefix>:{<board>:<period>}:ver    HASH  member -> projected ledger version
-- KEYS[3]  <prefix>:{<board>:<period>}:meta   HASH  vsum -> sum of all projected versions
-- KEYS[4]  <prefix>:{<board>:<period>}:public STRING present while publicly frozen: the totals
--          then go to the live ranking
-- KEYS[5]  <prefix>:{<board>:<period>}:live   ZSET  (see project.lua)
-- ARGV[1]  keep_top: the most members the ranking keeps (0: unbounded; see trim below)
-- ARGV     then member1, version1, score1, hidden1, member2, version2, score2, hidden2, ...
--          (hidden: '1' leaves the member out of the ranking but records its version, '0' ranks it)
-- Returns  the number of members written.

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
local written = 0
local ranking = KEYS[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
  ranking = KEYS[5]
end
for i = 2, #ARGV, 4 do
  local member, version = ARGV[i], tonumber(ARGV[i + 1])
  local stored = tonumber(redis.call('HGET', KEYS[2], member) or '0')
  if version > stored then
    if ARGV[i + 3] == '1' then
      lowered(ranking, tonumber(ARGV[1]), member, nil)
      redis.call('ZREM', ranking, member)
    else
      lowered(ranking, tonumber(ARGV[1]), member, ARGV[i + 2])
      redis.call('ZADD', ranking, ARGV[i + 2], member)
    end
    redis.call('HSET', KEYS[2], member, ARGV[i + 1])
    redis.call('HINCRBY', KEYS[3], 'vsum', version - stored)
    written = written + 1
  end
end
trim(ranking, tonumber(ARGV[1]))
return written
