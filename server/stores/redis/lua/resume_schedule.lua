-- uses: common, schedules
-- KEYS[1] schedule: the schedule's hash
-- KEYS[2] runs: the list of its recent runs
-- KEYS[3] due: the zset of unpaused schedules
-- ARGV[1] name: the schedule
-- ARGV[2] revision: the revision whose settings next_run_at was computed from
-- ARGV[3] next_run_at: its next tick
-- Answers {0} when there is no such schedule, {1} when its revision is another, and otherwise
-- {2, schedule_answer}; a schedule that is not paused is left as it is.
local schedule, runs, due = KEYS[1], KEYS[2], KEYS[3]
local name, revision, next_run_at = ARGV[1], ARGV[2], ARGV[3]
local kept = redis.call('HMGET', schedule, 'revision', 'paused')
if not kept[1] then return {0} end
if kept[1] ~= revision then return {1} end
if kept[2] == '1' then
  redis.call('HSET', schedule, 'paused', '0', 'next_run_at', next_run_at)
  redis.call('HDEL', schedule, 'lease_id', 'lease_until')
  redis.call('ZADD', due, next_run_at, name)
end
return {2, schedule_answer(schedule, runs)}
