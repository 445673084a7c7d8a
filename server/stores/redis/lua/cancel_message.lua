-- uses: common, messages, flow, log
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the message
local message_id = ARGV[3]
local key = require_message(message_id)
local state = redis.call('HGET', key, 'state')
if state ~= 'scheduled' then fail('invalid_state', state) end
local in_due = due_member(key, message_id)
redis.call('ZREM', DUE, in_due)
redis.call('HSET', key, 'state', 'cancelled')
redis.call('HDEL', key, 'next_attempt_at')
log_event(message_id, 'cancelled')
local flow_key = redis.call('HGET', key, 'flow_key')
if flow_key then
  redis.call('ZREM', FLOW .. flow_key .. '~parked', in_due)
  flow_settled(flow_key, message_id, false)
end
return redis.call('HGETALL', key)
