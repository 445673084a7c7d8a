-- uses: common, messages, flow
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] after: the key the page starts after ('' = from the first)
-- ARGV[4] limit: how many keys at most
-- Returns {more, states}: 1 when keys follow the page, and each key's state as flow_state gives it.
local after, limit = ARGV[3], tonumber(ARGV[4])
local start = after == '' and '-' or '(' .. after
local keys = redis.call('ZRANGEBYLEX', FLOW_KEYS, start, '+', 'LIMIT', 0, limit + 1)
local states = {}
for index = 1, math.min(limit, #keys) do states[index] = flow_state(keys[index]) end
return {#keys > limit and 1 or 0, states}
