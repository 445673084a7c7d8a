-- uses: common
-- KEYS[1] counter; ARGV: amount.
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = used - tonumber(ARGV[1])
if left <= 0 then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], left) end
return 1
