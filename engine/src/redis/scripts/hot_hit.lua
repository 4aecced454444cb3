-- Counts hits on a hot board, one after the other, each exactly as if it were a call of its own:
-- the anti-abuse checks, the bucket write and the bucket's expiry in one atomic step per hit
-- (docs/DESIGN.md, "Bucket TTLs" and "Dedup, caps and weights": split into separate commands, a
-- crash could leave a bucket without a TTL, and concurrent hits could slip past a check). Laurel
-- sends the hits that wait for the same board in one call (engine/src/redis/grouped.rs).
--
-- KEYS[1]  <prefix>:hot:{<board>}   the board's namespace (not a key itself). Every key below is
--          derived from it and shares its hash tag, so the script stays in one Cluster slot. The
--          bucket's name depends on the server's clock, which is why it cannot be passed in:
--            <ns>:<bucket>                          ZSET   member -> score of one time bucket
--            <ns>:dedup:<interval>:<actor>|<member> STRING the actor already counted for member
--            <ns>:cap:<interval>:<actor>            STRING hits the actor counted this interval
--          (actors never contain '|', so a dedup name cannot be read two ways)
-- ARGV[1]  now in milliseconds, or '' for the server's TIME (app-server clocks must not split
--          buckets; tests pass an instant)
-- ARGV[2]  bucket length, ms
-- ARGV[3]  bucket TTL, s: set once at the bucket's first write (EXPIRE NX), never pushed back
-- ARGV[4]  'count' (ZINCRBY) | 'best' (ZADD GT CH: the score may only rise)
-- ARGV[5]  anti-abuse interval, ms (dedup and cap are per aligned interval)
-- ARGV[6]  most hits an actor may count per interval, or 0 for no cap
-- ARGV[7]  size bound: beyond it the bucket's lowest members are trimmed
-- ARGV[8…] the hits, three arguments each: the hit's score (the increment, or the proposed
--          best), member, actor or '' (then no dedup and no cap)
-- Returns  one { result, bucket, score } for each hit, in order: result 'counted' | 'deduplicated'
--          | 'capped' | 'not_raised' (best: ZADD GT CH changed nothing); bucket the bucket number; score the member's score in the bucket
--          afterwards ('' if absent).
local ns = KEYS[1]
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local bucket_ms, ttl, mode = tonumber(ARGV[2]), ARGV[3], ARGV[4]
local interval_ms, cap, bound = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])

local bucket = math.floor(now / bucket_ms)
local key = ns .. ':' .. string.format('%d', bucket)
local interval = math.floor(now / interval_ms)
-- Until the end of the aligned interval (at least 1 ms).
local remaining = math.max(1, (interval + 1) * interval_ms - now)

local function hit(score, member, actor)
  local function current()
    return redis.call('ZSCORE', key, member) or ''
  end
  local counter
  if actor ~= '' then
    local tag = string.format('%d', interval) .. ':' .. actor
    -- An actor at its cap is refused before its dedup marker is taken.
    if cap > 0 then
      counter = ns .. ':cap:' .. tag
      if (tonumber(redis.call('GET', counter)) or 0) >= cap then
        return { 'capped', bucket, current() }
      end
    end
    -- The dedup marker (docs/DESIGN.md, "Dedup, caps and weights"): SET NX EX — only the first
    -- hit of the interval sets it and counts.
    if not redis.call('SET', ns .. ':dedup:' .. tag .. '|' .. member, '1', 'NX', 'PX', remaining) then
      return { 'deduplicated', bucket, current() }
    end
  end

  -- ZADD GT CH answers 0 when the score did not rise (equal or lower): the hit is answered
  -- 'not_raised', still spending the actor's dedup marker and cap like any hit that reached here.
  local raised = true
  if mode == 'best' then
    raised = redis.call('ZADD', key, 'GT', 'CH', score, member) == 1
  else
    redis.call('ZINCRBY', key, score, member)
  end
  redis.call('EXPIRE', key, ttl, 'NX')
  local size = redis.call('ZCARD', key)
  if size > bound then
    redis.call('ZREMRANGEBYRANK', key, 0, size - bound - 1)
  end
  if counter then
    redis.call('INCR', counter)
    redis.call('PEXPIRE', counter, remaining, 'NX')
  end
  if not raised then
    return { 'not_raised', bucket, current() }
  end
  return { 'counted', bucket, current() }
end

local answers = {}
for i = 8, #ARGV, 3 do
  answers[#answers + 1] = hit(ARGV[i], ARGV[i + 1], ARGV[i + 2])
end
return answers
