-- uses: common, messages, filter
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- KEYS[7] listed: zset of every message id, by publish sequence
-- ARGV[3] before: the publish sequence the page starts below ('+inf' for the newest)
-- ARGV[4] limit: how many messages to answer at most
-- ARGV[5] where: the filter's document (lib/filter.lua)
-- ARGV[6] budget: how many messages to look at at most, so a rare filter costs a bounded page
-- Answers {next_before, messages}: the sequence the next page starts below ('' when no message is
-- left) and each message's HGETALL, newest first.
local listed = KEYS[7]
local before, limit = ARGV[3], tonumber(ARGV[4])
local where, budget = filter_load(ARGV[5]), tonumber(ARGV[6])
local upper = before
if before ~= '+inf' then upper = '(' .. before end
local candidates = redis.call('ZREVRANGEBYSCORE', listed, upper, '-inf', 'WITHSCORES',
  'LIMIT', 0, budget + 1)
local messages, looked, last_score, next_before = {}, 0, nil, ''
for index = 1, #candidates, 2 do
  if looked == budget or #messages == limit then
    next_before = last_score
    break
  end
  looked = looked + 1
  last_score = candidates[index + 1]
  local message_id = candidates[index]
  local key = MESSAGE .. message_id
  local fields = redis.call('HMGET', key, 'state', 'created_at')
  if fields[1] and filter_passes(where, key, message_id, fields[1], tonumber(fields[2])) then
    messages[#messages + 1] = redis.call('HGETALL', key)
  end
end
return {next_before, messages}
