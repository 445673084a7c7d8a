-- uses: common, messages, flow, log, dead_letters
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] message_id: the dead letter's message
-- ARGV[4] headers: JSON object of forwarded headers to set, or '' for none
local message_id = ARGV[3]
local headers = ARGV[4]
local key = retry_dead_letter(message_id, headers ~= '' and cjson.decode(headers) or nil)
if not key then fail('dead_letter_not_found') end
return redis.call('HGETALL', key)
