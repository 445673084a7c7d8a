-- The messages' event log (Store.list_logs), written by the script that changes a message's state,
-- in the same script. An event is a member of EVENTS scored by its sequence (from SEQ, so newer
-- events score higher), as the JSON object {seq, id, state, at} with the attempt's number, status
-- code and error when an attempt led to it; `at` is text, as fmt keeps every digit of it.
local function log_event(message_id, state, attempt, status_code, error_text)
  local sequence = redis.call('INCR', SEQ)
  local event = {seq = sequence, id = message_id, state = state, at = NOW_TEXT}
  if attempt then event.attempt = attempt end
  if status_code then event.status_code = status_code end
  if error_text then event.error = error_text end
  redis.call('ZADD', EVENTS, sequence, cjson.encode(event))
end
