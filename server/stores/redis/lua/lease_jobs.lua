-- uses: common, queue
-- ARGV[3] max jobs, ARGV[4] lease seconds ('' = the queue's), ARGV[5] consumer ('' = anonymous),
-- ARGV[6] '1' when only some topics may be leased, ARGV[7] how many, then the topics, then one
-- fresh lease id per job that may be leased.
require_queue()
settle()
local max_jobs = tonumber(ARGV[3])
local lease_seconds = ARGV[4]
if lease_seconds == '' then lease_seconds = redis.call('HGET', META, 'lease_seconds') end
local expires_at = fmt(NOW + tonumber(lease_seconds))
local consumer = ARGV[5]
local topic_count = tonumber(ARGV[7])
local topics = nil
if ARGV[6] == '1' then
  topics = {}
  for index = 8, 7 + topic_count do topics[ARGV[index]] = true end
end
local lease_ids = 8 + topic_count
local chosen, early = {}, {}
local offset = 0
while #chosen < max_jobs do
  local batch = redis.call('ZRANGE', AVAIL, offset, offset + 199)
  if #batch == 0 then break end
  for _, job_id in ipairs(batch) do
    if #chosen >= max_jobs then break end
    local job = redis.call('HMGET', JOB .. job_id, 'topic', 'available_at')
    if tonumber(job[2]) > NOW then
      -- Settled by a process whose clock is ahead of ours (or before our clock stepped back).
      early[#early + 1] = {job_id, job[2]}
    elseif topics == nil or topics[job[1]] then
      chosen[#chosen + 1] = job_id
    end
  end
  offset = offset + 200
end
for _, job in ipairs(early) do
  redis.call('ZREM', AVAIL, job[1])
  redis.call('ZADD', DELAYED, job[2], job[1])
end
local leased = {}
for index, job_id in ipairs(chosen) do
  local key = JOB .. job_id
  local lease_id = ARGV[lease_ids + index - 1]
  local attempts = redis.call('HINCRBY', key, 'attempts', 1)
  redis.call('HSET', key, 'state', 'leased', 'lease_id', lease_id, 'lease_expires_at', expires_at,
    'consumer', consumer)
  redis.call('ZREM', AVAIL, job_id)
  redis.call('ZADD', LEASED, expires_at, job_id)
  local job = redis.call('HMGET', key, 'topic', 'payload', 'published_at')
  leased[#leased + 1] = {job_id, job[1], job[2], attempts, lease_id, job[3]}
end
return {expires_at, leased}
