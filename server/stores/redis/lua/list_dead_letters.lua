-- uses: common, messages, flow, log, dead_letters, filter
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] limit: how many dead letters to look at at most
-- ARGV[4] after_score: the failure time the page starts after, or '' from the oldest
-- ARGV[5] after_sequence: with after_score, the zero-padded sequence it starts after
-- ARGV[6] where: the MessageFilter document the letters' messages must pass (lib/filter.lua),
-- its times the filing times
-- ARGV[7] filed_from, ARGV[8] filed_to: the failure times looked at, from included and to not,
-- or '' for no bound
-- ARGV[9] horizon: the latest failure time looked at, included (the walk's first page's now)
-- Returns {next_score, next_sequence, letters}: the position after the last dead letter looked
-- at (false and '' when none is left) and the fields of those that matched, oldest first.
local limit = tonumber(ARGV[3])
local after_score = ARGV[4]
local after_sequence = ARGV[5]
local where = filter_load(ARGV[6])
local filed_from = ARGV[7]
local filed_to = ARGV[8]
local horizon = ARGV[9]

local after = after_score ~= '' and tonumber(after_score) or nil
local low_text = '-inf'
if after and (filed_from == '' or after >= tonumber(filed_from)) then
  low_text = after_score
elseif filed_from ~= '' then
  low_text = filed_from
end
local high_text = horizon
if filed_to ~= '' and tonumber(filed_to) <= tonumber(horizon) then high_text = '(' .. filed_to end

local letters = {}
local looked = 0
local last_score, last_sequence = false, ''
local offset = 0
local exhausted = false
while looked < limit and not exhausted do
  local chunk = redis.call('ZRANGEBYSCORE', DEAD, low_text, high_text, 'WITHSCORES', 'LIMIT',
    offset, limit)
  exhausted = #chunk < 2 * limit
  offset = offset + #chunk / 2
  for index = 1, #chunk, 2 do
    local dead_member, score = chunk[index], chunk[index + 1]
    local sequence = string.sub(dead_member, 1, 20)
    -- Letters filed at the cursor's own time sort by sequence: those up to its own were seen.
    local seen = after and tonumber(score) == after and sequence <= after_sequence
    if not seen and looked < limit then
      looked = looked + 1
      last_score, last_sequence = score, sequence
      local message_id = member_id(dead_member)
      local key = MESSAGE .. message_id
      if filter_passes(where, key, message_id, nil, tonumber(score)) then
        letters[#letters + 1] = redis.call('HMGET', key, unpack(DEAD_LETTER_FIELDS))
      end
    end
  end
end
if looked < limit then last_score, last_sequence = false, '' end
return {last_score, last_sequence, letters}
