-- uses: common, trim
-- KEYS[1] stream: the stream
-- ARGV[1..] trim steps: see lib/trim.lua
local stream = KEYS[1]
if redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
local length_before = redis.call('XLEN', stream)
trim(stream, 1)
local length = redis.call('XLEN', stream)
return {length, length_before - length}
