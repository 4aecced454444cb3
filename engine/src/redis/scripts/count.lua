-- Counts a ranking's members with at least a score, with the ranking's floor read in the same
-- atomic step (a bounded ranking counts exactly only above it).
--
-- KEYS[1]  a ranking ZSET (member -> encoded score)
-- KEYS[2]  the ranking's :meta (floor.lua, prepended)
-- ARGV[1]  the lowest score counted
-- Returns  { count, floor score, floor member } (the floor: false, false when none)
local floor = floor_of(KEYS[2])
return { redis.call('ZCOUNT', KEYS[1], ARGV[1], '+inf'), floor[1], floor[2] }
