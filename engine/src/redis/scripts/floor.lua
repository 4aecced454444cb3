-- The order of a ranking and a bounded ranking's floor; prepended to the scripts that trim
-- (bounded.lua's callers) and to the reads that answer the floor (window.lua, ranks.lua,
-- count.lua).
--
-- A ranking orders by score, descending, then member id, descending in byte order. Lua's `>` on
-- strings follows the server's locale, so bytes are compared here.
local function bytes_after(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end
-- Whether (score a, member a) ranks before (score b, member b).
local function ranks_before(score_a, member_a, score_b, member_b)
  local x, y = tonumber(score_a), tonumber(score_b)
  if x ~= y then
    return x > y
  end
  return bytes_after(member_a, member_b)
end
-- The floor of a bounded ranking (bounded.lua), from its :meta: { score, member } of the best
-- entry a trim removed, or { false, false } when no :meta key is given or nothing was trimmed.
-- A ranking trimmed before floors were kept answers '+inf' (nothing is known to be exact) until
-- the reconciler's refill sets one.
local function floor_of(meta)
  if not meta then
    return { false, false }
  end
  local floor = redis.call('HMGET', meta, 'floor', 'floor_member')
  if floor[1] then
    return floor
  end
  if redis.call('HEXISTS', meta, 'trimmed') == 1 then
    return { '+inf', '' }
  end
  return { false, false }
end
