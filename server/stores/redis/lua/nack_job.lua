-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] job_id: the job
-- ARGV[4] lease_id: the lease the caller holds
-- ARGV[5] delay: seconds until the job is ready again (its retry_delay)
-- ARGV[6] last_error: '' for none (which keeps the last error), else '=' and the error
local job_id, lease_id, delay, last_error = ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
require_queue()
local key = require_job(job_id)
require_lease(key, lease_id)
end_lease(key, job_id)
-- The attempt failed, with or without an error; release_job gives back a job never tried.
local err = nil
if last_error ~= '' then
  err = string.sub(last_error, 2)
  redis.call('HSET', key, 'last_error', err)
end
end_attempt(key, lease_id, NOW_TEXT, 'failed', err)
if tonumber(redis.call('HGET', key, 'attempts')) >= max_attempts() then
  make_dead(key, job_id, NOW_TEXT)
else
  local available_at = NOW_TEXT
  if delay > 0 then available_at = fmt(NOW + delay) end
  redis.call('HSET', key, 'state', 'ready', 'available_at', available_at)
  if delay > 0 then
    redis.call('ZADD', DELAYED, available_at, job_id)
  else
    make_available(key, job_id)
    ring()
  end
end
return job_answer(key)
