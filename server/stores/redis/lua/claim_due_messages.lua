-- uses: common, messages
-- KEYS[1..5], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] limit: how many due messages to claim at most
-- ARGV[4] lease_margin: each message's lease lasts its own timeout plus this many seconds
-- ARGV[5..] lease ids: one fresh lease id per message that may be claimed
local limit, lease_margin, lease_ids = tonumber(ARGV[3]), tonumber(ARGV[4]), 5
local due = redis.call('ZRANGEBYSCORE', DUE, '-inf', NOW_TEXT, 'LIMIT', 0, limit)
local claimed = {}
for index, due_entry in ipairs(due) do
  local key = MESSAGE .. member_id(due_entry)
  local lease_end = fmt(NOW + tonumber(redis.call('HGET', key, 'timeout')) + lease_margin)
  redis.call('HSET', key, 'state', 'delivering', 'next_attempt_at', lease_end,
    'lease_id', ARGV[lease_ids + index - 1])
  redis.call('ZADD', DUE, lease_end, due_entry)
  claimed[#claimed + 1] = redis.call('HGETALL', key)
end
return claimed
