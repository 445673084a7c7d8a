-- Every message script gets the messages' keys (MessageKeys.declared()) and two arguments first;
-- its own keys start at KEYS[7], its own arguments at ARGV[3].
-- KEYS[1] DUE: zset of scheduled and delivering messages, by next try (or lease end)
-- KEYS[2] DEAD: zset of dead letters, by when they failed
-- KEYS[3] DEDUP: hash of dedup_key -> '<created_at> <message_id>'
-- KEYS[4] DEDUP_EXP: zset of dedup keys, by when they expire
-- KEYS[5] SEQ: counter of publish, failure and event order
-- KEYS[6] EVENTS: zset of the messages' events (lib/log.lua), by sequence
-- ARGV[1] MESSAGE: the message key prefix (a message's hash is MESSAGE .. message_id)
-- ARGV[2] NOW_TEXT: the store's clock (NOW is its number)
-- Members of the due and dead sets are "<sequence>:<message_id>" with the sequence zero-padded, so
-- that messages with equal times keep the order they were published (or failed) in.
local DUE, DEAD, DEDUP, DEDUP_EXP, SEQ, EVENTS = unpack(KEYS, 1, 6)
local MESSAGE = ARGV[1]
local NOW_TEXT = ARGV[2]
local NOW = tonumber(NOW_TEXT)

local function require_message(message_id)
  local key = MESSAGE .. message_id
  if redis.call('EXISTS', key) == 0 then fail('message_not_found') end
  return key
end

local function member(sequence, message_id)
  return string.format('%020d', tonumber(sequence)) .. ':' .. message_id
end

local function member_id(set_member)
  return string.sub(set_member, 22)
end

local function due_member(key, message_id)
  return member(redis.call('HGET', key, 'seq'), message_id)
end

-- A message published before the store counted its retry budget counts by the delivery engine's
-- old rule: it fails after exactly retries + 1 attempts, so earlier budgets used whole multiples.
local function legacy_retries_used(key)
  local counts = redis.call('HMGET', key, 'attempt_count', 'retries')
  return tonumber(counts[1]) % (tonumber(counts[2]) + 1)
end

local function require_current_lease(key, lease_id)
  local held = redis.call('HMGET', key, 'state', 'lease_id')
  if held[1] ~= 'delivering' or held[2] ~= lease_id then fail('lease_expired') end
end

-- The dead letter's member, once removed from the dead set; false when it was not a dead letter.
local function remove_dead_letter(message_id)
  local key = MESSAGE .. message_id
  local dead_member = redis.call('HGET', key, 'dead_member')
  if not dead_member or redis.call('ZREM', DEAD, dead_member) == 0 then return false end
  redis.call('HDEL', key, 'dead_member', 'dead_attempts', 'failed_at', 'last_error',
    'last_status_code')
  return key
end
