-- uses: common, messages
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3..] message ids: the dead letters to delete, distinct
local deleted = {}
for index = 3, #ARGV do
  local message_id = ARGV[index]
  if remove_dead_letter(message_id) then deleted[#deleted + 1] = message_id end
end
return deleted
