-- The points and ranks of a list of members, read atomically (social view, member lookup).
--
-- KEYS[1]  a ranking ZSET (member -> encoded score)
-- KEYS[2]  the ranking's :meta, whose floor (floor.lua, prepended) is answered first
-- ARGV[1]  tie base B
-- ARGV[2]  'shared' (rank = 1 + members with strictly more points) or 'first_reached' (position)
-- ARGV[3..] member ids
-- Returns  { floor score, floor member, score1, rank1, score2, rank2, ... } with false/0 for
--          absent members (the floor: false, false when none).
local key = KEYS[1]
local base = tonumber(ARGV[1])
local out = floor_of(KEYS[2])
for i = 3, #ARGV do
  local score = redis.call('ZSCORE', key, ARGV[i])
  if not score then
    out[#out + 1] = false
    out[#out + 1] = 0
  else
    local rank
    if ARGV[2] == 'shared' then
      local s = tonumber(score)
      local rem = math.fmod(s, base)
      if rem < 0 then rem = rem + base end
      rank = 1 + redis.call('ZCOUNT', key, string.format('%.0f', s - rem + base), '+inf')
    else
      rank = 1 + redis.call('ZREVRANK', key, ARGV[i])
    end
    out[#out + 1] = score
    out[#out + 1] = rank
  end
end
return out
