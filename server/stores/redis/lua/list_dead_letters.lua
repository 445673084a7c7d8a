-- uses: common, messages
-- ARGV[3] limit.
local letters = {}
for _, dead_member in ipairs(redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[3]) - 1)) do
  letters[#letters + 1] = redis.call('HMGET', MESSAGE .. member_id(dead_member), 'message_id',
    'url', 'dead_attempts', 'failed_at', 'last_error', 'last_status_code')
end
return letters
