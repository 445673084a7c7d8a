-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the dead job
local job_id = ARGV[3]
local key = require_dead_job(job_id)
redis.call('DEL', key)
redis.call('ZREM', ALL, job_id)
redis.call('ZREM', DEAD, job_id)
return settled(1)
