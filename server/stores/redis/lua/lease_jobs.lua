-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] max_jobs: how many jobs to lease at most
-- ARGV[4] lease_seconds: how long the leases last ('' for the queue's setting)
-- ARGV[5] consumer: who leases ('' for anonymous)
-- ARGV[6] only_topics: '1' when only the topics that follow may be leased
-- ARGV[7] topic_count: how many topics follow
-- ARGV[8..] topics, then lease ids: the topics, then one fresh lease id per job that may be leased
local max_jobs, lease_seconds, consumer = tonumber(ARGV[3]), ARGV[4], ARGV[5]
local only_topics, topic_count = ARGV[6], tonumber(ARGV[7])
local first_topic = 8
local lease_ids = first_topic + topic_count
require_queue()
settle()
if lease_seconds == '' then lease_seconds = redis.call('HGET', META, 'lease_seconds') end
local expires_at = fmt(NOW + tonumber(lease_seconds))
local topics = nil
if only_topics == '1' then
  topics = {}
  for index = first_topic, lease_ids - 1 do topics[ARGV[index]] = true end
end
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
  begin_attempt(key, attempts, lease_id, consumer)
  redis.call('ZREM', AVAIL, job_id)
  redis.call('ZADD', LEASED, expires_at, job_id)
  local job = redis.call('HMGET', key, 'topic', 'payload', 'published_at', 'traceparent')
  leased[#leased + 1] = {job_id, job[1], job[2], attempts, lease_id, job[3], job[4]}
end
-- With nothing leased, the caller waits for a ring after this one.
return settled({expires_at, leased, last_ring()})
