-- uses: common, schedules
-- KEYS[1] schedule: the schedule's hash
-- KEYS[2] runs: the list of its recent runs, newest first
-- KEYS[3] due: the zset of unpaused schedules
-- ARGV[1] name: the schedule
-- ARGV[2] lease_id: the claim the tick was made under
-- ARGV[3] run: the run, as JSON text
-- ARGV[4] fired_at: when the run was made
-- ARGV[5] next_run_at: the schedule's next tick, unless it is paused
-- ARGV[6] keep: how many runs to keep
-- Answers {0} when there is no such schedule, {1} when the lease is not current, and otherwise
-- {2, schedule_answer}.
local schedule, runs, due = KEYS[1], KEYS[2], KEYS[3]
local name, lease_id, run, fired_at = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local next_run_at, keep = ARGV[5], tonumber(ARGV[6])
local kept = redis.call('HMGET', schedule, 'revision', 'lease_id', 'paused')
if not kept[1] then return {0} end
if kept[2] ~= lease_id then return {1} end
redis.call('HDEL', schedule, 'lease_id', 'lease_until')
redis.call('HSET', schedule, 'last_run_at', fired_at)
if kept[3] == '1' then
  redis.call('HDEL', schedule, 'next_run_at')
  redis.call('ZREM', due, name)
else
  redis.call('HSET', schedule, 'next_run_at', next_run_at)
  redis.call('ZADD', due, next_run_at, name)
end
redis.call('LPUSH', runs, run)
redis.call('LTRIM', runs, 0, keep - 1)
return {2, schedule_answer(schedule, runs)}
