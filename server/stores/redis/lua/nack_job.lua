-- uses: common, queue
-- ARGV[3] job id, ARGV[4] lease id, ARGV[5] retry delay, ARGV[6] the error ('' for none, which
-- keeps the last error, else '=' and the error).
require_queue()
local key = require_job(ARGV[3])
require_lease(key, ARGV[4])
end_lease(key, ARGV[3])
if ARGV[6] ~= '' then redis.call('HSET', key, 'last_error', string.sub(ARGV[6], 2)) end
if tonumber(redis.call('HGET', key, 'attempts')) >= max_attempts() then
  make_dead(key, ARGV[3], NOW_TEXT)
else
  local delay = tonumber(ARGV[5])
  local available_at = NOW_TEXT
  if delay > 0 then available_at = fmt(NOW + delay) end
  redis.call('HSET', key, 'state', 'ready', 'available_at', available_at)
  if delay > 0 then
    redis.call('ZADD', DELAYED, available_at, ARGV[3])
  else
    make_available(key, ARGV[3])
  end
end
return job_answer(key)
