-- uses: common, messages
-- KEYS[1..5], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the message
local message_id = ARGV[3]
local key = require_message(message_id)
local state = redis.call('HGET', key, 'state')
if state ~= 'scheduled' then fail('invalid_state', state) end
redis.call('ZREM', DUE, due_member(key, message_id))
redis.call('HSET', key, 'state', 'cancelled')
redis.call('HDEL', key, 'next_attempt_at')
return redis.call('HGETALL', key)
