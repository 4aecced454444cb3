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

-- `lowered`, `trim`, `unguarded` and `check_later` (bounded boards, keep_top) come from
-- bounded.lua, prepended at load.
local written = 0
local keep = tonumber(ARGV[1])
local blind = {}
local ranking = KEYS[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
  ranking = KEYS[5]
end
for i = 2, #ARGV, 4 do
  local member, version = ARGV[i], tonumber(ARGV[i + 1])
  local stored = tonumber(redis.call('HGET', KEYS[2], member) or '0')
  if version > stored then
    if unguarded(keep, stored) then
      blind[#blind + 1] = member
    end
    if ARGV[i + 3] == '1' then
      lowered(ranking, keep, member, nil)
      redis.call('ZREM', ranking, member)
    else
      lowered(ranking, keep, member, ARGV[i + 2])
      redis.call('ZADD', ranking, ARGV[i + 2], member)
    end
    redis.call('HSET', KEYS[2], member, ARGV[i + 1])
    redis.call('HINCRBY', KEYS[3], 'vsum', version - stored)
    written = written + 1
  end
end
trim(ranking, keep)
for _, member in ipairs(blind) do
  check_later(ranking, member)
end
return written
