-- uses: common, schedules
-- KEYS[1] schedule: the schedule's hash
-- KEYS[2] runs: the list of its recent runs
-- KEYS[3] due: the zset of unpaused schedules
-- ARGV[1] name: the schedule
-- Answers schedule_answer, or false when there is no such schedule. A tick in progress keeps its
-- lease, so that it may still record its run.
local schedule, runs, due = KEYS[1], KEYS[2], KEYS[3]
local name = ARGV[1]
if redis.call('EXISTS', schedule) == 0 then return false end
redis.call('HSET', schedule, 'paused', '1')
redis.call('HDEL', schedule, 'next_run_at')
redis.call('ZREM', due, name)
return schedule_answer(schedule, runs)
