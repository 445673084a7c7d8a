-- uses: common, queue
-- ARGV[3] state ('' = every state), ARGV[4] limit. States are as settle() leaves them at NOW.
require_queue()
settle()
local wanted, limit = ARGV[3], tonumber(ARGV[4])
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
return jobs
