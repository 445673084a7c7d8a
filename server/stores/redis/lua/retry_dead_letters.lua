-- uses: common, messages, flow, log, dead_letters
-- KEYS[1..6], ARGV[1] message prefix, ARGV[2] now: as lib/messages.lua names them
-- ARGV[3] headers: JSON object of forwarded headers to set, or '' for none
-- ARGV[4..] message ids: the dead letters to retry, distinct
local headers = ARGV[3]
local override = headers ~= '' and cjson.decode(headers) or nil
local retried = {}
for index = 4, #ARGV do
  local message_id = ARGV[index]
  if retry_dead_letter(message_id, override) then retried[#retried + 1] = message_id end
end
return retried
