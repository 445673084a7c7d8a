-- uses: common
-- KEYS[1] bucket: the rate-limit bucket (a hash of tokens and when they were counted)
-- ARGV[1] per_second: how many tokens the bucket gains a second
-- ARGV[2] burst: how many tokens it holds at most
-- Answers the seconds to wait, '0' when a token was taken. The time is Redis's own.
local key = KEYS[1]
local per_second, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local bucket = redis.call('HMGET', key, 'tokens', 'at')
local tokens = burst
if bucket[1] then
  local elapsed = math.max(0, now - tonumber(bucket[2]))
  tokens = math.min(burst, tonumber(bucket[1]) + elapsed * per_second)
end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / per_second end
redis.call('HSET', key, 'tokens', fmt(tokens), 'at', fmt(now))
redis.call('PEXPIRE', key, math.ceil((burst - tokens) / per_second * 1000) + 1000)
return fmt(wait)
