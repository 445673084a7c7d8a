-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] wanted: the state to list ('' for every state); states are as settle() leaves them
-- ARGV[4] limit: how many jobs to list at most
local wanted, limit = ARGV[3], tonumber(ARGV[4])
require_queue()
settle()
local jobs = {}
local offset = 0
while #jobs < limit do
  local batch = redis.call('ZRANGE', ALL, offset, offset + 199)
  if #batch == 0 then break end
  for _, job_id in ipairs(batch) do
    if #jobs >= limit then break end
    local key = JOB .. job_id
    local state = redis.call('HGET', key, 'state')
    if state == 'ready' and tonumber(redis.call('HGET', key, 'available_at')) > NOW then
      state = 'delayed'
    end
    if wanted == '' or wanted == state then jobs[#jobs + 1] = job_answer(key) end
  end
  offset = offset + 200
end
return settled(jobs)
