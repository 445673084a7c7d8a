-- uses: common, messages, filter
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] before: the event sequence the page starts below ('+inf' for the newest)
-- ARGV[4] limit: how many events to answer at most
-- ARGV[5] where: the filter's document (lib/filter.lua)
-- ARGV[6] budget: how many events to look at at most, so a rare filter costs a bounded page
-- Answers {next_before, events}: the sequence the next page starts below ('' when no event is
-- left) and, newest first, each event (lib/log.lua) with its message's url, url_group, flow_key
-- and options (each false when the message has none).
local before, limit = ARGV[3], tonumber(ARGV[4])
local where, budget = filter_load(ARGV[5]), tonumber(ARGV[6])
local upper = before
if before ~= '+inf' then upper = '(' .. before end
local candidates = redis.call('ZREVRANGEBYSCORE', EVENTS, upper, '-inf', 'WITHSCORES',
  'LIMIT', 0, budget + 1)
local events, looked, last_score, next_before = {}, 0, nil, ''
for index = 1, #candidates, 2 do
  if looked == budget or #events == limit then
    next_before = last_score
    break
  end
  looked = looked + 1
  last_score = candidates[index + 1]
  local event = cjson.decode(candidates[index])
  local key = MESSAGE .. event.id
  if filter_passes(where, key, event.id, event.state, tonumber(event.at)) then
    local fields = redis.call('HMGET', key, 'url', 'url_group', 'flow_key', 'options')
    if fields[1] then
      events[#events + 1] = {candidates[index], fields[1], fields[2], fields[3], fields[4]}
    end
  end
end
return {next_before, events}
