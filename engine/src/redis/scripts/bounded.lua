-- The bounded-board helpers of project.lua and level.lua, prepended to both (after floor.lua)
-- when they are loaded (`engine/src/redis/mod.rs`, `level.rs`), so the two scripts trim alike.
-- They use the callers' KEYS[2] (:ver) and KEYS[3] (:meta).
--
-- A bounded board (keep_top K > 0) keeps only its best K members: the rest leave the ranking and
-- their versions leave the version hash, so both stay bounded (the ledger keeps everyone, and
-- reads below K come from it). A trimmed member's later write has no version here to compare
-- with; it is admitted if it ranks within K: projections carry the ledger's absolute total, so an
-- in-order write is right. Two projections of one member reordered across rounds, the newer one
-- trimmed at once (its version with it), would let the older one in unguarded: so a member
-- admitted without a stored version while the ranking is trimmed, and still held after the trim,
-- is marked `blind:<member>` in :meta (`unguarded`), and the reconciler compares its version with
-- the ledger's within a pass (`Jobs::reconcile_once`), levelling it if the ledger's is newer.
--
-- `floor` and `floor_member` in :meta are the best entry any trim removed (absent: nothing was
-- trimmed). A trim removes the tail of the ranking's order (score, then member id), so every
-- member Redis no longer holds ranks after that entry, and a member held that ranks before it
-- has exactly the rank and position Redis gives it; the reads (`window.lua`, `ranks.lua`,
-- `count.lua`) answer from the ledger wherever an entry is not before it. A kept member that
-- falls behind the floor (or is hidden) therefore never shows a wrong rank; `refill` then asks
-- the reconciler to put the ledger's best K back, so that Redis covers K members again
-- (`Jobs::reconcile_once`; the rebuild sets the floor anew). `ranks_before` is floor.lua's,
-- prepended before this file.
local function lowered(ranking, keep, member, score)
  if keep <= 0 then
    return
  end
  local floor = redis.call('HMGET', KEYS[3], 'floor', 'floor_member')
  if not floor[1] then
    return
  end
  local old = redis.call('ZSCORE', ranking, member)
  if old and (score == nil or not ranks_before(score, member, floor[1], floor[2])) then
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
  local out = redis.call('ZRANGE', ranking, 0, extra - 1, 'WITHSCORES')
  local dropped = 0
  for i = 1, #out, 2 do
    dropped = dropped + tonumber(redis.call('HGET', KEYS[2], out[i]) or '0')
    redis.call('HDEL', KEYS[2], out[i])
  end
  redis.call('HINCRBY', KEYS[3], 'vsum', -dropped)
  redis.call('ZREMRANGEBYRANK', ranking, 0, extra - 1)
  -- The best entry removed is the last one (ZRANGE is worst first). The floor never moves back
  -- here; only a rebuild from the ledger sets it anew.
  local member, score = out[#out - 1], string.format('%.0f', tonumber(out[#out]))
  local floor = redis.call('HMGET', KEYS[3], 'floor', 'floor_member')
  if not floor[1] or ranks_before(score, member, floor[1], floor[2]) then
    redis.call('HSET', KEYS[3], 'floor', score, 'floor_member', member)
  end
end
-- Whether a write of `member` (its stored version `stored`) goes in without the version guard:
-- nothing stored to compare with, on a ranking that was trimmed. Read before the write.
local function unguarded(keep, stored)
  return keep > 0 and stored == 0 and redis.call('HEXISTS', KEYS[3], 'floor') == 1
end
-- After the trim: asks the reconciler to check an unguarded member that the ranking still holds.
local function check_later(ranking, member)
  if redis.call('ZSCORE', ranking, member) then
    redis.call('HSET', KEYS[3], 'blind:' .. member, '1')
  end
end
