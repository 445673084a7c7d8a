-- uses: common, messages
-- ARGV[3] limit, ARGV[4] lease margin: each message's lease lasts its own timeout plus the margin;
-- ARGV[5..] one fresh lease id per message that may be claimed.
local due = redis.call('ZRANGEBYSCORE', DUE, '-inf', NOW_TEXT, 'LIMIT', 0, tonumber(ARGV[3]))
local lease_margin = tonumber(ARGV[4])
local claimed = {}
for index, due_entry in ipairs(due) do
  local key = MESSAGE .. member_id(due_entry)
  local lease_end = fmt(NOW + tonumber(redis.call('HGET', key, 'timeout')) + lease_margin)
  redis.call('HSET', key, 'state', 'delivering', 'next_attempt_at', lease_end,
    'lease_id', ARGV[4 + index])
  redis.call('ZADD', DUE, lease_end, due_entry)
  claimed[#claimed + 1] = redis.call('HGETALL', key)
end
return claimed
