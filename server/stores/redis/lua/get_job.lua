-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the job
local job_id = ARGV[3]
require_queue()
return job_answer(require_job(job_id))
