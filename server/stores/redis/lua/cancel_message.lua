-- uses: common, messages
-- ARGV[3] message id.
local key = require_message(ARGV[3])
local state = redis.call('HGET', key, 'state')
if state ~= 'scheduled' then fail('invalid_state', state) end
redis.call('ZREM', DUE, due_member(key, ARGV[3]))
redis.call('HSET', key, 'state', 'cancelled')
redis.call('HDEL', key, 'next_attempt_at')
return redis.call('HGETALL', key)
