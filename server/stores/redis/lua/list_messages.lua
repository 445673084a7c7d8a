-- uses: common, messages
-- KEYS[1..5], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- KEYS[6] listed: zset of every message id, by publish sequence
-- ARGV[3] before: the publish sequence the page starts below ('+inf' for the newest)
-- ARGV[4] limit: how many messages to answer at most
-- ARGV[5] state: only messages in this state ('' for any)
-- ARGV[6] url_group: only messages published to this URL group ('' for any)
-- ARGV[7] budget: how many messages to look at at most, so a rare filter costs a bounded page
-- Answers {next_before, messages}: the sequence the next page starts below ('' when no message is
-- left) and each message's HGETALL, newest first.
local listed = KEYS[6]
local before, limit = ARGV[3], tonumber(ARGV[4])
local state, url_group, budget = ARGV[5], ARGV[6], tonumber(ARGV[7])
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
  local key = MESSAGE .. candidates[index]
  local fields = redis.call('HMGET', key, 'state', 'url_group')
  if fields[1] and (state == '' or fields[1] == state)
      and (url_group == '' or fields[2] == url_group) then
    messages[#messages + 1] = redis.call('HGETALL', key)
  end
end
return {next_before, messages}
