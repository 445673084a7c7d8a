-- uses: common, messages
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] limit: how many dead letters to list at most
local limit = tonumber(ARGV[3])
local letters = {}
for _, dead_member in ipairs(redis.call('ZRANGE', DEAD, 0, limit - 1)) do
  letters[#letters + 1] = redis.call('HMGET', MESSAGE .. member_id(dead_member), 'message_id',
    'url', 'dead_attempts', 'failed_at', 'last_error', 'last_status_code')
end
return letters
