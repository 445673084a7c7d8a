-- ARGV[first] = number of trim steps, then per step: strategy, '~' or '=', threshold.
local function trim(stream, first)
  for step = 1, tonumber(ARGV[first]) do
    local base = first + 1 + (step - 1) * 3
    redis.call('XTRIM', stream, ARGV[base], ARGV[base + 1], ARGV[base + 2])
  end
end
