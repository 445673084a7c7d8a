-- uses: common, queue
-- ARGV[3] job id, ARGV[4] lease id.
require_queue()
local key = require_job(ARGV[3])
require_lease(key, ARGV[4])
end_lease(key, ARGV[3])
redis.call('HSET', key, 'state', 'succeeded', 'finished_at', NOW_TEXT)
redis.call('ZADD', DONE, NOW_TEXT, ARGV[3])
return job_answer(key)
