-- One step of a stepwise reveal: the revealed members' live scores enter the public view, if the
-- view in place is the one the step was decided on (else the reconciler puts the right one).
--
-- KEYS[1]  <prefix>:{<board>:<period>}:rank    ZSET  the public view
-- KEYS[2]  <prefix>:{<board>:<period>}:public  STRING the marker
-- ARGV[1]  the marker's value before the step, ARGV[2] after it
-- ARGV     then member1, score1, member2, score2, ... (an empty score: the member leaves the view)
-- Returns  1 when applied, 0 when the view in place was another
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return 0
end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('ZREM', KEYS[1], ARGV[i])
  else
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
  end
end
redis.call('SET', KEYS[2], ARGV[2])
return 1
