-- uses: common, queue
-- ARGV[3] job id.
require_queue()
local key = require_job(ARGV[3])
settle()
local state = redis.call('HGET', key, 'state')
if state ~= 'dead' then
  if state == 'ready' and tonumber(redis.call('HGET', key, 'available_at')) > NOW then
    state = 'delayed'
  end
  fail('invalid_state', state)
end
redis.call('ZREM', DEAD, ARGV[3])
redis.call('HSET', key, 'state', 'ready', 'attempts', 0, 'available_at', NOW_TEXT)
redis.call('HDEL', key, 'finished_at')
make_available(key, ARGV[3])
return job_answer(key)
