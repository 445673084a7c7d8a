-- uses: common, messages
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] before: remove the events that happened before this time
-- ARGV[4] limit: how many events to remove at most
-- Events are scored by sequence, which follows the store's clock, so the oldest come first and
-- the first event at or after `before` ends the scan. Answers how many were removed.
local before, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local oldest = redis.call('ZRANGE', EVENTS, 0, limit - 1)
local removed = 0
for _, event in ipairs(oldest) do
  if tonumber(cjson.decode(event).at) >= before then break end
  redis.call('ZREM', EVENTS, event)
  removed = removed + 1
end
return removed
