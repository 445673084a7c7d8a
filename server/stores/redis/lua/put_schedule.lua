-- uses: common, schedules
-- KEYS[1] schedule: the schedule's hash
-- KEYS[2] runs: the list of its recent runs, newest first
-- KEYS[3] names: the zset of schedule names (all scored 0), for listing
-- KEYS[4] due: the zset of unpaused schedules, by when a tick of each may next be claimed
-- ARGV[1] name: the schedule
-- ARGV[2] cron, ARGV[3] timezone, ARGV[4] catch_up, ARGV[5] destination: its settings
-- ARGV[6] revision: the new settings' revision
-- ARGV[7] now: the store's clock
-- ARGV[8] next_run_at: its next tick, unless it is paused
-- Answers {created (1 or 0), schedule_answer}. A replaced schedule keeps its creation time,
-- whether it is paused, its last run and its runs; a tick in progress is forgotten.
local schedule, runs, names, due = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name, cron, timezone, catch_up = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local destination, revision, now, next_run_at = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local created = redis.call('EXISTS', schedule) == 0
if created then
  redis.call('HSET', schedule, 'created_at', now, 'paused', '0')
end
redis.call('HSET', schedule, 'cron', cron, 'timezone', timezone, 'catch_up', catch_up,
  'destination', destination, 'revision', revision, 'updated_at', now)
redis.call('HDEL', schedule, 'lease_id', 'lease_until')
if redis.call('HGET', schedule, 'paused') == '1' then
  redis.call('HDEL', schedule, 'next_run_at')
  redis.call('ZREM', due, name)
else
  redis.call('HSET', schedule, 'next_run_at', next_run_at)
  redis.call('ZADD', due, next_run_at, name)
end
redis.call('ZADD', names, 0, name)
return {created and 1 or 0, schedule_answer(schedule, runs)}
