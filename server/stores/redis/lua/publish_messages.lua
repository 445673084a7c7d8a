-- uses: common, idempotency, messages, flow, log
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- KEYS[7] listed: zset of every message id, by publish sequence (for listing)
-- KEYS[8] record: the idempotency record (none for a plain publish)
-- ARGV[3] leased_message: the message whose lease the publish needs to be current ('' = none)
-- ARGV[4] lease_id: that lease ('' = none)
-- ARGV[5] request_hash: the request's hash (see lib/idempotency.lua)
-- ARGV[6] ttl: the idempotency record's time to live, in seconds
-- ARGV[7] message_count: how many messages follow
-- ARGV[8..] messages: each message_id, dedup_key ('' = none), dedup window, url, item, the number
-- of field/value items, then the items (which include not_before and next_attempt_at)
-- A receipt is {message_id, deduplicated, url, item}.
local listed, record = KEYS[7], KEYS[8]
local leased_message, lease_id = ARGV[3], ARGV[4]
local request_hash, ttl, message_count = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local kept = replayed_result(record, request_hash, NOW)
if kept then return {1, kept} end
if leased_message ~= '' then require_current_lease(require_message(leased_message), lease_id) end
local expired = redis.call('ZRANGEBYSCORE', DEDUP_EXP, '-inf', NOW_TEXT, 'LIMIT', 0, 1000)
for _, dedup_key in ipairs(expired) do
  redis.call('HDEL', DEDUP, dedup_key)
  redis.call('ZREM', DEDUP_EXP, dedup_key)
end
local receipts = {}
local base = 8
for _ = 1, message_count do
  local message_id, dedup_key, window = ARGV[base], ARGV[base + 1], tonumber(ARGV[base + 2])
  local url, item, item_count = ARGV[base + 3], tonumber(ARGV[base + 4]), tonumber(ARGV[base + 5])
  local earlier = false
  if dedup_key ~= '' then
    local seen = redis.call('HGET', DEDUP, dedup_key)
    if seen then
      local separator = string.find(seen, ' ', 1, true)
      local created_at = tonumber(string.sub(seen, 1, separator - 1))
      if NOW - created_at < window then earlier = string.sub(seen, separator + 1) end
    end
  end
  if earlier then
    receipts[#receipts + 1] = {earlier, 1, url, item}
  else
    local key = MESSAGE .. message_id
    redis.call('HSET', key, unpack(ARGV, base + 6, base + 5 + item_count))
    local sequence = redis.call('INCR', SEQ)
    redis.call('HSET', key, 'seq', sequence)
    redis.call('ZADD', listed, sequence, message_id)
    local next_attempt_at = redis.call('HGET', key, 'next_attempt_at')
    redis.call('ZADD', DUE, next_attempt_at, member(sequence, message_id))
    log_event(message_id, 'created')
    local flow_key = redis.call('HGET', key, 'flow_key')
    if flow_key then flow_published(flow_key, key, sequence, message_id) end
    if dedup_key ~= '' then
      redis.call('HSET', DEDUP, dedup_key, NOW_TEXT .. ' ' .. message_id)
      redis.call('ZADD', DEDUP_EXP, fmt(NOW + window), dedup_key)
    end
    receipts[#receipts + 1] = {message_id, 0, url, item}
  end
  base = base + 6 + item_count
end
remember(record, request_hash, NOW, ttl, receipts)
return {0, receipts}
