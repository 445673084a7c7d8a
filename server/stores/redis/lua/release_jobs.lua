-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3..]: job_id, lease_id pairs
-- Answers one word per pair, in order: 'released', or why not ('lease_expired', 'job_not_found').
require_queue()
local outcomes = {}
local released = false
for i = 3, #ARGV, 2 do
  local job_id, lease_id = ARGV[i], ARGV[i + 1]
  local key = JOB .. job_id
  local job = redis.call('HMGET', key, 'state', 'lease_id', 'lease_expires_at')
  if job[1] == false then
    outcomes[#outcomes + 1] = 'job_not_found'
  elseif job[1] ~= 'leased' or job[2] ~= lease_id or tonumber(job[3]) <= NOW then
    outcomes[#outcomes + 1] = 'lease_expired'
  else
    release(key, job_id, lease_id)
    released = true
    outcomes[#outcomes + 1] = 'released'
  end
end
if released then ring() end
return outcomes
