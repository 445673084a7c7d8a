-- uses: common, messages
-- ARGV[3] message id.
local key = remove_dead_letter(ARGV[3])
if not key then fail('dead_letter_not_found') end
redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', NOW_TEXT, 'retries_used', 0)
redis.call('ZADD', DUE, NOW_TEXT, due_member(key, ARGV[3]))
return redis.call('HGETALL', key)
