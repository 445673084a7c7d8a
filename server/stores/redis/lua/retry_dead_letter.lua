-- uses: common, messages, flow, log
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the dead letter's message
local message_id = ARGV[3]
local key = remove_dead_letter(message_id)
if not key then fail('dead_letter_not_found') end
redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', NOW_TEXT, 'retries_used', 0)
redis.call('ZADD', DUE, NOW_TEXT, due_member(key, message_id))
log_event(message_id, 'scheduled')
local flow_key = redis.call('HGET', key, 'flow_key')
if flow_key then
  redis.call('ZADD', FLOW .. flow_key .. '~open', redis.call('HGET', key, 'seq'), message_id)
end
return redis.call('HGETALL', key)
