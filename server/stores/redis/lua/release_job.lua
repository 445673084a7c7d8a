-- uses: common, queue
-- KEYS[1..9], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the job
-- ARGV[4] lease_id: the lease the caller holds
-- The job was never tried: it is ready now and the lease's attempt is given back.
local job_id, lease_id = ARGV[3], ARGV[4]
require_queue()
local key = require_job(job_id)
require_lease(key, lease_id)
end_lease(key, job_id)
end_attempt(key, lease_id, NOW_TEXT, 'released', nil)
redis.call('HINCRBY', key, 'attempts', -1)
redis.call('HSET', key, 'state', 'ready', 'available_at', NOW_TEXT)
make_available(key, job_id)
return job_answer(key)
