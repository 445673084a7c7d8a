-- uses: common
-- KEYS[1] session: the console session's hash
-- ARGV[1] now: the store's time
-- ARGV[2] token_id: the id of the token the session was made with
-- ARGV[3] token_check: the check value of that token's secret
-- ARGV[4] lifetime: seconds until the session ends whatever happens
-- ARGV[5] idle: seconds without a touching visit after which it ends
-- Answers the session's expires_at. Redis drops the hash when it ends, by its TTL.
local key = KEYS[1]
local now_text, token_id, token_check = ARGV[1], ARGV[2], ARGV[3]
local lifetime, idle_text = tonumber(ARGV[4]), ARGV[5]
local now, idle = tonumber(now_text), tonumber(idle_text)
local expires_at = now + lifetime
local idle_until = math.min(expires_at, now + idle)
redis.call('DEL', key)
redis.call('HSET', key, 'token_id', token_id, 'token_check', token_check, 'created_at', now_text,
  'expires_at', fmt(expires_at), 'idle_seconds', idle_text, 'idle_until', fmt(idle_until))
redis.call('PEXPIRE', key, math.ceil((idle_until - now) * 1000))
return fmt(expires_at)
