-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the job
-- ARGV[4] lease_id: the lease the caller holds
local job_id, lease_id = ARGV[3], ARGV[4]
require_queue()
local key = require_job(job_id)
require_lease(key, lease_id)
release(key, job_id, lease_id)
ring()
return job_answer(key)
