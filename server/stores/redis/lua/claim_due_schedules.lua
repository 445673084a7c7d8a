-- uses: common, schedules
-- KEYS[1] due: the zset of unpaused schedules, by when a tick of each may next be claimed
-- ARGV[1] schedule_prefix: what a schedule's hash key is, before its name
-- ARGV[2] runs_prefix: what a schedule's runs' list key is, before its name
-- ARGV[3] now: the store's clock
-- ARGV[4] limit: how many ticks to claim at most
-- ARGV[5] lease: seconds each claim's lease lasts
-- ARGV[6..] lease ids: one fresh lease id per tick that may be claimed
-- Answers {name, lease_id, tick_at, schedule_answer} for each claimed tick, earliest first. A
-- claimed tick's score is when its lease ends, so it is due again if its scheduler dies.
local due = KEYS[1]
local schedule_prefix, runs_prefix, now_text = ARGV[1], ARGV[2], ARGV[3]
local now, limit, lease, lease_ids = tonumber(now_text), tonumber(ARGV[4]), tonumber(ARGV[5]), 6
local claimed = {}
local names = redis.call('ZRANGEBYSCORE', due, '-inf', now_text, 'LIMIT', 0, limit)
for _, name in ipairs(names) do
  local schedule = schedule_prefix .. name
  local kept = redis.call('HMGET', schedule, 'paused', 'next_run_at', 'lease_until')
  local next_run_at, lease_until = tonumber(kept[2]), tonumber(kept[3])
  if kept[1] ~= '0' or not next_run_at then
    redis.call('ZREM', due, name)
  elseif next_run_at <= now and (not lease_until or lease_until <= now) then
    local lease_id, lease_end = ARGV[lease_ids + #claimed], fmt(now + lease)
    redis.call('HSET', schedule, 'lease_id', lease_id, 'lease_until', lease_end)
    redis.call('ZADD', due, lease_end, name)
    claimed[#claimed + 1] = {name, lease_id, kept[2],
      schedule_answer(schedule, runs_prefix .. name)}
  else
    redis.call('ZADD', due, kept[lease_until and 3 or 2], name)
  end
end
return claimed
