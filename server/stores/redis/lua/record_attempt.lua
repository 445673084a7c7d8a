-- uses: common, messages, flow, log
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the message
-- ARGV[4] lease_id: the lease the attempt was made under
-- ARGV[5] attempt: the attempt, as JSON text
-- ARGV[6] outcome: 'delivered', 'retry' or 'failed'
-- ARGV[7] next_attempt_at: when to try again (for a retry)
-- ARGV[8] last_error: the attempt's error ('' for none, else '=' and the error)
-- ARGV[9] last_status_code: its status code ('' for none, else '=' and the code)
local message_id, lease_id, attempt, outcome = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local next_attempt_at, last_error, last_status_code = ARGV[7], ARGV[8], ARGV[9]
local key = require_message(message_id)
require_current_lease(key, lease_id)
if redis.call('HEXISTS', key, 'retries_used') == 0 then
  redis.call('HSET', key, 'retries_used', legacy_retries_used(key))
end
redis.call('HINCRBY', key, 'retries_used', 1)
local count = redis.call('HINCRBY', key, 'attempt_count', 1)
redis.call('HSET', key, 'attempt:' .. count, attempt)
redis.call('HDEL', key, 'lease_id')
local in_due = due_member(key, message_id)
if outcome == 'retry' then
  redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', next_attempt_at)
  redis.call('ZADD', DUE, next_attempt_at, in_due)
else
  redis.call('HSET', key, 'state', outcome)
  redis.call('HDEL', key, 'next_attempt_at')
  redis.call('ZREM', DUE, in_due)
end
local number = cjson.decode(attempt).attempt
local status_code = last_status_code ~= '' and tonumber(string.sub(last_status_code, 2)) or nil
local error_text = last_error ~= '' and string.sub(last_error, 2) or nil
log_event(message_id, outcome, number, status_code, error_text)
if outcome == 'failed' then
  log_event(message_id, 'dead_lettered', number, status_code, error_text)
end
local flow_key = redis.call('HGET', key, 'flow_key')
if flow_key then flow_settled(flow_key, message_id, outcome == 'retry') end
if outcome == 'failed' then
  remove_dead_letter(message_id)
  local dead_member = member(redis.call('INCR', SEQ), message_id)
  redis.call('HSET', key, 'dead_member', dead_member, 'dead_attempts', count,
    'failed_at', NOW_TEXT)
  if last_error ~= '' then redis.call('HSET', key, 'last_error', string.sub(last_error, 2)) end
  if last_status_code ~= '' then
    redis.call('HSET', key, 'last_status_code', string.sub(last_status_code, 2))
  end
  redis.call('ZADD', DEAD, NOW_TEXT, dead_member)
end
return redis.call('HGETALL', key)
