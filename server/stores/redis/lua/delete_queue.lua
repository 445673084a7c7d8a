-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
require_queue()
for _, job_id in ipairs(redis.call('ZRANGE', ALL, 0, -1)) do
  redis.call('DEL', JOB .. job_id)
end
redis.call('DEL', META, ALL, AVAIL, DELAYED, LEASED, DEAD, DONE, DEDUP, DEDUP_EXP, BELL)
return 1
