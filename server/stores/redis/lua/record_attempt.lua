-- uses: common, messages
-- ARGV[3] message id, ARGV[4] lease id, ARGV[5] attempt JSON, ARGV[6] outcome, ARGV[7] next attempt
-- time (retry), ARGV[8] the attempt's error, ARGV[9] its status code (each '' for none, else '='
-- and the value).
local message_id = ARGV[3]
local key = require_message(message_id)
require_current_lease(key, ARGV[4])
if redis.call('HEXISTS', key, 'retries_used') == 0 then
  redis.call('HSET', key, 'retries_used', legacy_retries_used(key))
end
redis.call('HINCRBY', key, 'retries_used', 1)
local count = redis.call('HINCRBY', key, 'attempt_count', 1)
redis.call('HSET', key, 'attempt:' .. count, ARGV[5])
redis.call('HDEL', key, 'lease_id')
local in_due = due_member(key, message_id)
if ARGV[6] == 'retry' then
  redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', ARGV[7])
  redis.call('ZADD', DUE, ARGV[7], in_due)
else
  redis.call('HSET', key, 'state', ARGV[6])
  redis.call('HDEL', key, 'next_attempt_at')
  redis.call('ZREM', DUE, in_due)
end
if ARGV[6] == 'failed' then
  remove_dead_letter(message_id)
  local dead_member = member(redis.call('INCR', SEQ), message_id)
  redis.call('HSET', key, 'dead_member', dead_member, 'dead_attempts', count,
    'failed_at', NOW_TEXT)
  if ARGV[8] ~= '' then redis.call('HSET', key, 'last_error', string.sub(ARGV[8], 2)) end
  if ARGV[9] ~= '' then redis.call('HSET', key, 'last_status_code', string.sub(ARGV[9], 2)) end
  redis.call('ZADD', DEAD, NOW_TEXT, dead_member)
end
return redis.call('HGETALL', key)
