-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the dead job
local job_id = ARGV[3]
local key = require_dead_job(job_id)
redis.call('ZREM', DEAD, job_id)
redis.call('HSET', key, 'state', 'ready', 'attempts', 0, 'available_at', NOW_TEXT)
redis.call('HDEL', key, 'finished_at')
make_available(key, job_id)
ring()
return settled(job_answer(key))
