-- An idempotent write (``IdempotencyClaim``) passes its record's key (nil for a plain write), the
-- request's hash and the record's ttl. ``replayed_result`` answers a live record's kept result (and
-- refuses another request's); ``remember`` keeps a new write's result. The write scripts answer
-- ``{replayed, result}``: 1 and the kept result, or 0 and what they just wrote.
local function replayed_result(record, request_hash, now)
  if not record then return nil end
  local kept = redis.call('HMGET', record, 'request_hash', 'expires_at', 'result')
  if not kept[1] or tonumber(kept[2]) <= now then return nil end
  if kept[1] ~= request_hash then fail('conflict') end
  return cjson.decode(kept[3])
end

local function remember(record, request_hash, now, ttl, result)
  if not record then return end
  redis.call('HSET', record, 'request_hash', request_hash, 'expires_at', fmt(now + ttl),
    'result', cjson.encode(result))
  redis.call('PEXPIRE', record, math.max(1, math.ceil(ttl * 1000)))
end
