-- Flow control of messages, by the rules of server/stores/contract/_flow_control.py and as the
-- SQLite store keeps them (server/stores/sqlite/_flow_control.py). Every key is in the messages'
-- slot, named after the message prefix (message ids start 'msg_', so none is a message's):
-- FLOW .. key              hash: rate, period, parallelism (the latest publish's), paused ('1')
-- FLOW .. key .. '~open'   zset: its scheduled and delivering messages, id by publish sequence
-- FLOW .. key .. '~parked' zset: its held-back messages, their due member by publish sequence
-- FLOW .. key .. '~flight' zset: its delivering messages, id by lease end
-- FLOW .. key .. '~starts' zset: the attempts counted against its rate, lease id by start time
-- FLOW_KEYS                zset: every key, all scored 0 (so by name)
-- FLOW_WAKE                zset: keys by when their parked messages are looked at again
-- A key never holds '~', so no name is another's. A parked message is 'scheduled', out of the due
-- set and without next_attempt_at, so claims pass it by; unpark() gives it a due time again.
local FLOW = MESSAGE .. 'fc:'
local FLOW_KEYS, FLOW_WAKE = FLOW .. '~keys', FLOW .. '~wake'
-- How many parked messages one key unparks at once when it has no limit (only ever paused).
local UNPARK_BATCH = 1000

local function flow_load(key)
  local meta = redis.call('HMGET', FLOW .. key, 'rate', 'period', 'parallelism', 'paused')
  local state = {key = key, rate = tonumber(meta[1]), period = tonumber(meta[2]) or 1,
    parallelism = tonumber(meta[3]), paused = meta[4] == '1', added = {}}
  local starts = FLOW .. key .. '~starts'
  redis.call('ZREMRANGEBYSCORE', starts, '-inf', fmt(NOW - state.period))
  state.stored = redis.call('ZCARD', starts)
  state.in_flight = redis.call('ZCOUNT', FLOW .. key .. '~flight', '(' .. NOW_TEXT, '+inf')
  local head = redis.call('ZRANGE', FLOW .. key .. '~open', 0, 0, 'WITHSCORES')
  state.head = head[2] and tonumber(head[2]) or false
  return state
end

local function flow_used(state)
  return state.stored + #state.added
end

local function flow_capacity(state)
  if state.paused then return 0 end
  local room = math.huge
  if state.parallelism then room = math.min(room, state.parallelism - state.in_flight) end
  if state.rate then room = math.min(room, state.rate - flow_used(state)) end
  return math.max(0, room)
end

-- The start time at 0-based position index of the key's rate window, oldest first.
local function flow_start_at(state, index)
  if index < state.stored then
    local found = redis.call('ZRANGE', FLOW .. state.key .. '~starts', index, index, 'WITHSCORES')
    return tonumber(found[2])
  end
  return state.added[index - state.stored + 1]
end

-- When time alone may let the key start another attempt (its rate window or a lease ending);
-- false when only an event (a settle, a resume) can.
local function flow_wake_at(state)
  if state.paused then return false end
  local at = false
  if state.rate and flow_used(state) >= state.rate then
    at = flow_start_at(state, flow_used(state) - state.rate) + state.period
  end
  if state.parallelism and state.in_flight >= state.parallelism then
    local lease = redis.call('ZRANGEBYSCORE', FLOW .. state.key .. '~flight', '(' .. NOW_TEXT,
      '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if lease[2] and (not at or tonumber(lease[2]) < at) then at = tonumber(lease[2]) end
  end
  return at
end

local function flow_set_wake(key, at)
  if not at then return end
  local current = redis.call('ZSCORE', FLOW_WAKE, key)
  if not current or tonumber(current) > at then redis.call('ZADD', FLOW_WAKE, fmt(at), key) end
end

-- A message of the key was published (message_key its hash, sequence its publish sequence):
-- its limits become the key's, and new limits let the next claim look at the parked messages.
local function flow_published(key, message_key, sequence, message_id)
  local limits = redis.call('HMGET', message_key, 'flow_rate', 'flow_period', 'flow_parallelism')
  local meta = FLOW .. key
  local held = redis.call('HMGET', meta, 'rate', 'period', 'parallelism')
  if held[1] ~= limits[1] or held[2] ~= limits[2] or held[3] ~= limits[3] then
    local names = {'rate', 'period', 'parallelism'}
    for index = 1, 3 do
      if limits[index] then
        redis.call('HSET', meta, names[index], limits[index])
      else
        redis.call('HDEL', meta, names[index])
      end
    end
    flow_set_wake(key, NOW)
  end
  redis.call('ZADD', FLOW_KEYS, 0, key)
  redis.call('ZADD', FLOW .. key .. '~open', sequence, message_id)
end

-- Give as many of the key's parked messages a due time (now) as it may take, oldest first; if
-- some stay parked, wake the key when time alone may free it.
local function flow_unpark(key)
  local state = flow_load(key)
  local capacity = flow_capacity(state)
  local parked_key = FLOW .. key .. '~parked'
  local parked = redis.call('ZRANGE', parked_key, 0, UNPARK_BATCH, 'WITHSCORES')
  local count = #parked / 2
  if count == 0 then return end
  local moved, holds
  if state.parallelism == 1 then
    -- Only the key's oldest open message may go, and only when it is the one parked.
    holds = tonumber(parked[2]) == state.head
    moved = (holds and capacity >= 1) and 1 or 0
  else
    holds = true
    moved = math.min(count, capacity == math.huge and UNPARK_BATCH or capacity)
  end
  for index = 1, moved do
    local entry = parked[2 * index - 1]
    redis.call('ZREM', parked_key, entry)
    redis.call('HSET', MESSAGE .. member_id(entry), 'next_attempt_at', NOW_TEXT)
    redis.call('ZADD', DUE, NOW_TEXT, entry)
  end
  if count > moved and holds then
    if capacity == math.huge then
      flow_set_wake(key, NOW)
      return
    end
    for _ = 1, moved do state.added[#state.added + 1] = NOW end
    state.in_flight = state.in_flight + moved
    flow_set_wake(key, flow_wake_at(state))
  end
end

-- The key's message left delivering (settled): its slot is free, and unless it is to be tried
-- again (still_open) it no longer holds back the ones behind it.
local function flow_settled(key, message_id, still_open)
  redis.call('ZREM', FLOW .. key .. '~flight', message_id)
  if not still_open then redis.call('ZREM', FLOW .. key .. '~open', message_id) end
  flow_unpark(key)
end

-- What one claim knows of the keys of the messages it looks at.
local flow_states = {}

-- Unpark the messages of every key whose wake time has come, some at a time.
local function flow_wake_due_keys()
  local keys = redis.call('ZRANGEBYSCORE', FLOW_WAKE, '-inf', NOW_TEXT, 'LIMIT', 0, 100)
  for _, key in ipairs(keys) do
    redis.call('ZREM', FLOW_WAKE, key)
    flow_unpark(key)
  end
end

-- Whether the due message (its hash message_key, due member due_entry) may be claimed now under
-- lease_id until lease_end; counts its start if so, parks it if not.
local function flow_admit(key, message_key, due_entry, lease_id, lease_end)
  local state = flow_states[key]
  if not state then
    state = flow_load(key)
    flow_states[key] = state
  end
  local sequence = tonumber(string.sub(due_entry, 1, 20))
  local behind = state.parallelism == 1 and state.head ~= sequence
  if flow_capacity(state) >= 1 and not behind then
    state.in_flight = state.in_flight + 1
    state.added[#state.added + 1] = NOW
    redis.call('ZADD', FLOW .. key .. '~starts', NOW_TEXT, lease_id)
    redis.call('ZADD', FLOW .. key .. '~flight', lease_end, member_id(due_entry))
    return true
  end
  redis.call('ZREM', DUE, due_entry)
  redis.call('ZREM', FLOW .. key .. '~flight', member_id(due_entry))
  redis.call('HSET', message_key, 'state', 'scheduled')
  redis.call('HDEL', message_key, 'next_attempt_at', 'lease_id')
  redis.call('ZADD', FLOW .. key .. '~parked', sequence, due_entry)
  if not behind then flow_set_wake(key, flow_wake_at(state)) end
  return false
end

-- The key's state: {key, rate, period, parallelism, paused, waiting, in_flight, rate_used}, the
-- limits '' before any publish named the key.
local function flow_state(key)
  local state = flow_load(key)
  local meta = redis.call('HMGET', FLOW .. key, 'rate', 'period', 'parallelism')
  local open = redis.call('ZCARD', FLOW .. key .. '~open')
  local delivering = redis.call('ZCARD', FLOW .. key .. '~flight')
  return {key, meta[1] or '', meta[2] or '', meta[3] or '', state.paused and 1 or 0,
    open - delivering, state.in_flight, flow_used(state)}
end
