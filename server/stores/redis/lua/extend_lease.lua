-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the job
-- ARGV[4] lease_id: the lease the caller holds
-- ARGV[5] lease_seconds: how long from now the lease lasts
local job_id, lease_id, lease_seconds = ARGV[3], ARGV[4], tonumber(ARGV[5])
require_queue()
local key = require_job(job_id)
require_lease(key, lease_id)
local expires_at = fmt(NOW + lease_seconds)
redis.call('HSET', key, 'lease_expires_at', expires_at)
redis.call('ZADD', LEASED, expires_at, job_id)
return job_answer(key)
