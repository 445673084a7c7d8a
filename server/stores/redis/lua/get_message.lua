-- uses: common, messages
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the message
local message_id = ARGV[3]
return redis.call('HGETALL', require_message(message_id))
