-- uses: common, queue
-- KEYS[1..9], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the dead job
local job_id = ARGV[3]
require_queue()
local key = require_job(job_id)
settle()
local state = redis.call('HGET', key, 'state')
if state ~= 'dead' then
  if state == 'ready' and tonumber(redis.call('HGET', key, 'available_at')) > NOW then
    state = 'delayed'
  end
  fail('invalid_state', state)
end
redis.call('DEL', key)
redis.call('ZREM', ALL, job_id)
redis.call('ZREM', DEAD, job_id)
return 1
