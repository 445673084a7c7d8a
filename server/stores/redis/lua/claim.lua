-- uses: common, require_group
-- KEYS[1] stream: the stream
-- KEYS[2] dead_letters: its dead-letter stream
-- KEYS[3] group_settings: the hash of its groups' settings (group -> max_deliveries)
-- ARGV[1] group: the consumer group
-- ARGV[2] consumer: the consumer that claims
-- ARGV[3] min_idle_ms: how long an entry must have been idle to be claimed
-- ARGV[4] start_id: the pending id the window starts at
-- ARGV[5] count: how many pending entries the window holds
-- ARGV[6] stream_name: the stream's name, for its dead letters
--
-- XAUTOCLAIM looks at up to ten times COUNT pending entries, but a claim may look at only
-- ``count`` (the contract). So the script first reads that window with XPENDING, dead-letters the
-- idle entries that used up the group's max_deliveries (XACK, then XADD to the dead-letter stream)
-- and counts the rest XAUTOCLAIM will act on (idle long enough, or trimmed away), then lets
-- XAUTOCLAIM act on exactly that many. Idle times only grow, so XAUTOCLAIM never reaches past the
-- window.
local stream, dead_letters, group_settings = KEYS[1], KEYS[2], KEYS[3]
local group, consumer, min_idle_ms, start_id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local count, stream_name = tonumber(ARGV[5]), ARGV[6]
local min_idle = tonumber(min_idle_ms)
require_group(stream, group)
local max_deliveries = tonumber(redis.call('HGET', group_settings, group) or '0')
local window = redis.call('XPENDING', stream, group, start_id, '+', count + 1)
local next_start_id = '0-0'
if #window > count then next_start_id = window[count + 1][1] end
local to_act_on = 0
local dead_lettered_ids = {}
for index = 1, math.min(count, #window) do
  local entry_id, idle, times = window[index][1], window[index][3], window[index][4]
  local used_up = max_deliveries > 0 and times >= max_deliveries
  local found = {}
  if idle < min_idle or used_up then found = redis.call('XRANGE', stream, entry_id, entry_id) end
  if idle >= min_idle and used_up and #found > 0 then
    local body = nil
    for field = 1, #found[1][2], 2 do
      if found[1][2][field] == 'b' then body = found[1][2][field + 1] end
    end
    redis.call('XACK', stream, group, entry_id)
    redis.call('XADD', dead_letters, '*', 'b', '{"stream":' .. cjson.encode(stream_name)
      .. ',"id":"' .. entry_id .. '","group":' .. cjson.encode(group) .. ',"delivery_count":'
      .. times .. ',"body":' .. body .. '}')
    dead_lettered_ids[#dead_lettered_ids + 1] = entry_id
  elseif idle >= min_idle or #found == 0 then
    to_act_on = to_act_on + 1
  end
end
local cursor = start_id
local entries, deleted_ids = {}, {}
while to_act_on > 0 do
  local claimed = redis.call(
    'XAUTOCLAIM', stream, group, consumer, min_idle_ms, cursor, 'COUNT', to_act_on)
  for _, entry in ipairs(claimed[2]) do
    local pending = redis.call('XPENDING', stream, group, entry[1], entry[1], 1)
    local body, traceparent = nil, false
    for index = 1, #entry[2], 2 do
      if entry[2][index] == 'b' then body = entry[2][index + 1] end
      if entry[2][index] == 't' then traceparent = entry[2][index + 1] end
    end
    entries[#entries + 1] = {entry[1], body, pending[1][4], traceparent}
  end
  for _, entry_id in ipairs(claimed[3]) do deleted_ids[#deleted_ids + 1] = entry_id end
  to_act_on = to_act_on - #claimed[2] - #claimed[3]
  cursor = claimed[1]
  if cursor == '0-0' then break end
end
return {next_start_id, entries, deleted_ids, dead_lettered_ids}
