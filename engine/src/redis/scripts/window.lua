-- Reads a window of a ranking in one atomic step, with what rank numbers need: a live page
-- (from an offset), the neighbourhood of a member (around-me), or a page after a keyset cursor.
--
-- KEYS[1]  a ranking ZSET (member -> encoded score): the live `:rank` or a pinned `:snap:<id>`
-- KEYS[2]  optional: the ranking's :meta, whose floor (floor.lua) is answered
-- ARGV[1]  mode: 'offset' | 'around' | 'after'
-- ARGV[2]  limit: entries wanted (one more is read, to tell ties and whether more follow)
-- ARGV[3]  tie base B: scores s and t hold equal points when floor(s/B) == floor(t/B)
-- ARGV[4]  offset: 0-based position of the first entry       (mode 'offset')
--          member                                           (mode 'around')
--          cursor score                                     (mode 'after')
-- ARGV[5]  radius: entries on each side of the member         (mode 'around')
--          cursor member                                    (mode 'after')
-- Returns  { total, offset, ahead, limit, floor score, floor member, member1, score1, ... }
--          best first; `offset` is the position of the first row, `ahead` the number of members
--          with strictly more points than it, `limit` the rows of the window proper (a further
--          row may follow it), the floor a bounded ranking's (false, false: none).
--          Mode 'around' returns { total, -1 } when the member is absent.
-- `bytes_after` and `floor_of` come from floor.lua, prepended at load.
local key = KEYS[1]
local mode = ARGV[1]
local limit = tonumber(ARGV[2])
local base = tonumber(ARGV[3])
local total = redis.call('ZCARD', key)
local offset

if mode == 'offset' then
  offset = tonumber(ARGV[4])
elseif mode == 'around' then
  local pos = redis.call('ZREVRANK', key, ARGV[4])
  if not pos then
    return { total, -1 }
  end
  local radius = tonumber(ARGV[5])
  offset = math.max(0, pos - radius)
  limit = pos - offset + radius + 1
else
  -- Keyset: everything strictly after (score, member) in (score desc, member desc) order.
  local score, member = ARGV[4], ARGV[5]
  local current = redis.call('ZSCORE', key, member)
  if current and tonumber(current) == tonumber(score) then
    offset = redis.call('ZREVRANK', key, member) + 1
  else
    -- The cursor's member moved or left (or the cursor names no member at all): the members
    -- with more points come first, then the cursor's tie in member-descending order. The tie may
    -- hold millions, so the place of the cursor's member in it is found by bisection, one
    -- ZREVRANGE of one row a step: O(log T) steps of O(log N), never a pass over the tie.
    offset = redis.call('ZCOUNT', key, '(' .. score, '+inf')
    local lo, hi = offset, offset + redis.call('ZCOUNT', key, score, score)
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      if bytes_after(redis.call('ZREVRANGE', key, mid, mid)[1], member) then
        lo = mid + 1
      else
        hi = mid
      end
    end
    offset = lo
  end
end

local rows = redis.call('ZREVRANGE', key, offset, offset + limit, 'WITHSCORES')
local ahead = 0
if #rows > 0 then
  local first = tonumber(rows[2])
  -- The lowest score holding more points than the first row: (floor(s/B) + 1) * B. fmod is
  -- exact on doubles where s/B is not (near 2^53 the division rounds up to the next integer).
  local rem = math.fmod(first, base)
  if rem < 0 then rem = rem + base end
  ahead = redis.call('ZCOUNT', key, string.format('%.0f', first - rem + base), '+inf')
end
local floor = floor_of(KEYS[2])
local out = { total, offset, ahead, limit, floor[1], floor[2] }
for i = 1, #rows do
  out[#out + 1] = rows[i]
end
return out
