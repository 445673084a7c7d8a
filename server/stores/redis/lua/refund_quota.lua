-- uses: common
-- KEYS[1] counter: the token's message count
-- ARGV[1] amount: how many messages to take back (the count never goes below zero)
local counter, amount = KEYS[1], ARGV[1]
local used = tonumber(redis.call('GET', counter) or '0')
local left = used - tonumber(amount)
if left <= 0 then redis.call('DEL', counter) else redis.call('SET', counter, left) end
return 1
