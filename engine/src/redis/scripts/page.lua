-- Reads a live page of a period's ranking in one atomic step, with what rank numbers need.
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank   ZSET  member -> encoded score
-- ARGV[1]  offset (0-based position of the first entry)
-- ARGV[2]  limit (entries wanted; one more is read to tell whether more follow)
-- ARGV[3]  tie base B: scores s and t hold equal points when floor(s/B) == floor(t/B)
-- Returns  { total, ahead, member1, score1, member2, score2, ... } best first, where `ahead` is the
--          number of members with strictly more points than the first entry (0 when empty).
local total = redis.call('ZCARD', KEYS[1])
local offset = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local rows = redis.call('ZREVRANGE', KEYS[1], offset, offset + limit, 'WITHSCORES')
local ahead = 0
if #rows > 0 then
  local base = tonumber(ARGV[3])
  local first = tonumber(rows[2])
  -- The lowest score holding more points than the first entry: (floor(s/B) + 1) * B. fmod is
  -- exact on doubles where s/B is not (near 2^53 the division rounds up to the next integer).
  local rem = math.fmod(first, base)
  if rem < 0 then rem = rem + base end
  local above = first - rem + base
  ahead = redis.call('ZCOUNT', KEYS[1], string.format('%.0f', above), '+inf')
end
local out = { total, ahead }
for i = 1, #rows do
  out[#out + 1] = rows[i]
end
return out
