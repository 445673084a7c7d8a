-- uses: common
-- KEYS[1] bucket; ARGV: per second, burst. Answers the seconds to wait, '0' when a token was taken.
local per_second, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
if bucket[1] then
  local elapsed = math.max(0, now - tonumber(bucket[2]))
  tokens = math.min(burst, tonumber(bucket[1]) + elapsed * per_second)
end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / per_second end
redis.call('HSET', KEYS[1], 'tokens', fmt(tokens), 'at', fmt(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / per_second * 1000) + 1000)
return fmt(wait)
