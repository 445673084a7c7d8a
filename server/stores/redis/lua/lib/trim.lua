-- A script's trim steps start at ARGV[first]:
-- ARGV[first] step count: how many XTRIM calls follow
-- ARGV[first + 1..] steps: three arguments each: strategy (MAXLEN or MINID), '~' or '=', threshold
local function trim(stream, first)
  for step = 1, tonumber(ARGV[first]) do
    local base = first + 1 + (step - 1) * 3
    redis.call('XTRIM', stream, ARGV[base], ARGV[base + 1], ARGV[base + 2])
  end
end
