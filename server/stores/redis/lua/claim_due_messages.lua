-- uses: common, messages, flow
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] limit: how many due messages to claim at most
-- ARGV[4] lease_margin: each message's lease lasts its own timeout plus this many seconds
-- ARGV[5..] lease ids: one fresh lease id per message that may be claimed
-- A flow controlled message is claimed only when its key lets it start (lib/flow.lua), else it is
-- parked; each message looked at is claimed or parked, so every round sees new ones, and the
-- budget bounds the script when many due messages are held back.
local limit, lease_margin, lease_ids = tonumber(ARGV[3]), tonumber(ARGV[4]), 5
local budget = limit + 1000
local claimed = {}
flow_wake_due_keys()
while #claimed < limit and budget > 0 do
  local due = redis.call('ZRANGEBYSCORE', DUE, '-inf', NOW_TEXT, 'LIMIT', 0,
    math.min(limit - #claimed, budget))
  if #due == 0 then break end
  budget = budget - #due
  for _, due_entry in ipairs(due) do
    local key = MESSAGE .. member_id(due_entry)
    local fields = redis.call('HMGET', key, 'timeout', 'flow_key')
    local lease_end = fmt(NOW + tonumber(fields[1]) + lease_margin)
    local lease_id = ARGV[lease_ids + #claimed]
    if not fields[2] or flow_admit(fields[2], key, due_entry, lease_id, lease_end) then
      redis.call('HSET', key, 'state', 'delivering', 'next_attempt_at', lease_end,
        'lease_id', lease_id)
      redis.call('ZADD', DUE, lease_end, due_entry)
      claimed[#claimed + 1] = redis.call('HGETALL', key)
    end
  end
end
return claimed
