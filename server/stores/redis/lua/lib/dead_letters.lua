-- Retrying a dead letter, for the scripts that retry one or a batch (after common, messages, flow
-- and log, whose names it uses).
local DEAD_LETTER_FIELDS = {'message_id', 'url', 'dead_attempts', 'failed_at', 'last_error',
  'last_status_code', 'url_group'}

-- The message's forwarded headers with each of override's replacing the one of the same name in
-- any letter case, or added; HTTP gives no meaning to the order of different names, which the
-- JSON round trip does not keep.
local function merge_headers(key, override)
  local merged = {}
  local replaced = {}
  for name, value in pairs(override) do
    replaced[string.lower(name)] = true
    merged[name] = value
  end
  for name, value in pairs(cjson.decode(redis.call('HGET', key, 'headers'))) do
    if not replaced[string.lower(name)] then merged[name] = value end
  end
  redis.call('HSET', key, 'headers', cjson.encode(merged))
end

-- The message's key once its dead letter is removed and it is scheduled now with a fresh retry
-- budget, both in this script; false when it was not a dead letter. override (nil: none) is a
-- table of forwarded headers to set.
local function retry_dead_letter(message_id, override)
  local key = remove_dead_letter(message_id)
  if not key then return false end
  redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', NOW_TEXT, 'retries_used', 0)
  if override then merge_headers(key, override) end
  redis.call('ZADD', DUE, NOW_TEXT, due_member(key, message_id))
  log_event(message_id, 'scheduled')
  local flow_key = redis.call('HGET', key, 'flow_key')
  if flow_key then
    redis.call('ZADD', FLOW .. flow_key .. '~open', redis.call('HGET', key, 'seq'), message_id)
  end
  return key
end
