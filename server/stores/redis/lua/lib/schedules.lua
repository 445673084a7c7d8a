-- A schedule's hash and its runs' list, as the store reads them back: the hash's fields (HGETALL)
-- and its runs, newest first, each the JSON text it was recorded as.
local function schedule_answer(schedule, runs)
  return {redis.call('HGETALL', schedule), redis.call('LRANGE', runs, 0, -1)}
end
