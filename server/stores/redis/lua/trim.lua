-- uses: common, trim
-- KEYS[1] stream; ARGV: trim steps (see lib/trim.lua).
if redis.call('EXISTS', KEYS[1]) == 0 then fail('stream_not_found') end
local length_before = redis.call('XLEN', KEYS[1])
trim(KEYS[1], 1)
local length = redis.call('XLEN', KEYS[1])
return {length, length_before - length}
