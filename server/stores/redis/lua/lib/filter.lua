-- MessageFilter (server/stores/message_filter.py) as its document gives it, and whether a message
-- (or its event) passes it. A message's labels and schedule are in its options document.
local function filter_load(text)
  local where = cjson.decode(text)
  if where.message_ids then
    local ids = {}
    for _, message_id in ipairs(where.message_ids) do ids[message_id] = true end
    where.ids = ids
  end
  return where
end

-- Whether the message of hash `key` passes `where`, with `state` and `at` its own or its event's.
local function filter_passes(where, key, message_id, state, at)
  if where.ids and not where.ids[message_id] then return false end
  if where.state and where.state ~= state then return false end
  if where.since and at < where.since then return false end
  if where['until'] and at >= where['until'] then return false end
  if not (where.url or where.url_group or where.flow_control_key or where.label
      or where.schedule) then
    return true
  end
  local fields = redis.call('HMGET', key, 'url', 'url_group', 'flow_key', 'options')
  if where.url and fields[1] ~= where.url then return false end
  if where.url_group and fields[2] ~= where.url_group then return false end
  if where.flow_control_key and fields[3] ~= where.flow_control_key then return false end
  if where.label or where.schedule then
    local options = fields[4] and cjson.decode(fields[4]) or {}
    if where.schedule and options.schedule ~= where.schedule then return false end
    if where.label then
      local found = false
      for _, label in ipairs(options.labels or {}) do
        if label == where.label then found = true end
      end
      if not found then return false end
    end
  end
  return true
end
