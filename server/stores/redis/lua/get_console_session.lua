-- uses: common
-- KEYS[1] session: the console session's hash
-- ARGV[1] now: the store's time
-- ARGV[2] touch: '1' to count a visit (the idle time starts again), '0' to only read
-- Answers the session's token_id, token_check, created_at, expires_at and idle_seconds, or nil
-- when there is no live session under the key.
local key = KEYS[1]
local now, touch = tonumber(ARGV[1]), ARGV[2] == '1'
local session = redis.call(
  'HMGET', key, 'token_id', 'token_check', 'created_at', 'expires_at', 'idle_seconds', 'idle_until')
if not session[1] or tonumber(session[6]) <= now then return nil end
if touch then
  local idle_until = math.min(tonumber(session[4]), now + tonumber(session[5]))
  redis.call('HSET', key, 'idle_until', fmt(idle_until))
  redis.call('PEXPIRE', key, math.ceil((idle_until - now) * 1000))
end
return {session[1], session[2], session[3], session[4], session[5]}
