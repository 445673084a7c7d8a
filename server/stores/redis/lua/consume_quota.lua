-- uses: common
-- KEYS[1] counter: the token's message count
-- ARGV[1] amount: how many messages to add
-- ARGV[2] limit: the count the addition may not pass
local counter, amount, limit = KEYS[1], ARGV[1], ARGV[2]
local used = tonumber(redis.call('GET', counter) or '0')
if used + tonumber(amount) > tonumber(limit) then return 0 end
redis.call('INCRBY', counter, amount)
return 1
