-- uses: common, messages, flow
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] action: 'get', 'pause', 'resume' or 'reset'
-- ARGV[4] key: the flow control key
-- Returns the key's state as lib/flow.lua's flow_state gives it, after the action.
local action, key = ARGV[3], ARGV[4]
if action == 'pause' then
  redis.call('HSET', FLOW .. key, 'paused', '1')
  redis.call('ZADD', FLOW_KEYS, 0, key)
elseif action == 'resume' then
  if redis.call('HDEL', FLOW .. key, 'paused') == 1 then flow_unpark(key) end
elseif action == 'reset' then
  redis.call('DEL', FLOW .. key .. '~starts')
  flow_unpark(key)
end
return flow_state(key)
