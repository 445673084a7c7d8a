-- uses: common
-- KEYS[1] schedule: the schedule's hash
-- KEYS[2] runs: the list of its recent runs
-- KEYS[3] names: the zset of schedule names
-- KEYS[4] due: the zset of unpaused schedules
-- ARGV[1] name: the schedule
-- Answers 1, or 0 when there is no such schedule.
local schedule, runs, names, due = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name = ARGV[1]
if redis.call('EXISTS', schedule) == 0 then return 0 end
redis.call('DEL', schedule, runs)
redis.call('ZREM', names, name)
redis.call('ZREM', due, name)
return 1
