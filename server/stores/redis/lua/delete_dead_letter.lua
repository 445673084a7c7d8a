-- uses: common, messages
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the dead letter's message
local message_id = ARGV[3]
if not remove_dead_letter(message_id) then fail('dead_letter_not_found') end
return 1
