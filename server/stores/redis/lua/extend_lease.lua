-- uses: common, queue
-- ARGV[3] job id, ARGV[4] lease id, ARGV[5] lease seconds.
require_queue()
local key = require_job(ARGV[3])
require_lease(key, ARGV[4])
local expires_at = fmt(NOW + tonumber(ARGV[5]))
redis.call('HSET', key, 'lease_expires_at', expires_at)
redis.call('ZADD', LEASED, expires_at, ARGV[3])
return job_answer(key)
