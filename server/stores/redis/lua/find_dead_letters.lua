-- uses: common, messages, flow, log, dead_letters
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3..] message ids: the messages whose dead letters to read, distinct
local letters = {}
for index = 3, #ARGV do
  local key = MESSAGE .. ARGV[index]
  local dead_member = redis.call('HGET', key, 'dead_member')
  if dead_member and redis.call('ZSCORE', DEAD, dead_member) then
    letters[#letters + 1] = redis.call('HMGET', key, unpack(DEAD_LETTER_FIELDS))
  end
end
return letters
