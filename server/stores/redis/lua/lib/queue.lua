-- Every queue script gets the queue's keys (QueueKeys.declared()) and two arguments first; its own
-- arguments start at ARGV[3]. A job's max_attempts is always its queue's current setting.
-- KEYS[1] META: hash of the queue's settings, created_at and job seq
-- KEYS[2] ALL: zset of every job, by publish sequence
-- KEYS[3] AVAIL: zset of ready jobs that are due, by sequence
-- KEYS[4] DELAYED: zset of ready jobs not yet due, by available_at
-- KEYS[5] LEASED: zset of leased jobs, by lease expiry
-- KEYS[6] DEAD: zset of dead jobs, by when they finished
-- KEYS[7] DONE: zset of succeeded jobs, by when they finished
-- KEYS[8] DEDUP: hash of deduplication_id -> job_id
-- KEYS[9] DEDUP_EXP: zset of deduplication ids, by when they expire
-- KEYS[10] BELL: the queue's doorbell, a stream of the last few rings (see ring())
-- ARGV[1] JOB: the job key prefix (a job's hash is JOB .. job_id)
-- ARGV[2] NOW_TEXT: the store's clock (NOW is its number)
local META, ALL, AVAIL, DELAYED, LEASED, DEAD, DONE, DEDUP, DEDUP_EXP, BELL = unpack(KEYS, 1, 10)
local JOB = ARGV[1]
local NOW_TEXT = ARGV[2]
local NOW = tonumber(NOW_TEXT)

-- Long polls of other service processes block on the doorbell (XREAD) and look for jobs again
-- when it rings: every script that makes a job ready now rings it (a job that becomes due later
-- needs no ring, a waiting lease's own re-check finds it). Only the newest entry's id matters to
-- them, so a few are kept.
local BELL_LENGTH = 16

local function ring()
  redis.call('XADD', BELL, 'MAXLEN', BELL_LENGTH, '*', 'r', '')
end

-- The id of the doorbell's last ring ('0-0' before the first): a long poll waits for a later one.
local function last_ring()
  local last = redis.call('XREVRANGE', BELL, '+', '-', 'COUNT', 1)
  if #last == 0 then return '0-0' end
  return last[1][1]
end

local function require_queue()
  if redis.call('EXISTS', META) == 0 then fail('queue_not_found') end
end

local function max_attempts()
  return tonumber(redis.call('HGET', META, 'max_attempts'))
end

local function require_job(job_id)
  local key = JOB .. job_id
  if redis.call('EXISTS', key) == 0 then fail('job_not_found') end
  return key
end

local function require_lease(key, lease_id)
  local job = redis.call('HMGET', key, 'state', 'lease_id', 'lease_expires_at')
  if job[1] ~= 'leased' or job[2] ~= lease_id or tonumber(job[3]) <= NOW then
    fail('lease_expired')
  end
end

-- The job's fields plus its queue's max_attempts, as one flat field/value list.
local function job_answer(key)
  local fields = redis.call('HGETALL', key)
  fields[#fields + 1] = 'max_attempts'
  fields[#fields + 1] = redis.call('HGET', META, 'max_attempts')
  return fields
end

-- A job's last attempts, as JSON in its hash's 'attempt_history' field (so they go with the hash):
-- oldest first, each {n = number, at = leased at, id = lease id, c = consumer, and once ended
-- end = ended at, out = outcome, err = error}; server/stores/job_history.py reads them.
local HISTORY_LIMIT = 20

local function begin_attempt(key, number, lease_id, consumer)
  local text = redis.call('HGET', key, 'attempt_history')
  local history = {}
  if text then history = cjson.decode(text) end
  history[#history + 1] = {n = number, at = NOW_TEXT, id = lease_id, c = consumer}
  while #history > HISTORY_LIMIT do table.remove(history, 1) end
  redis.call('HSET', key, 'attempt_history', cjson.encode(history))
end

-- Ends the attempt of lease ``lease_id`` if it is the job's last and still open.
local function end_attempt(key, lease_id, ended_at, outcome, err)
  local text = redis.call('HGET', key, 'attempt_history')
  if not text then return end
  local history = cjson.decode(text)
  local last = history[#history]
  if last == nil or last.id ~= lease_id or last['end'] ~= nil then return end
  last['end'], last.out, last.err = ended_at, outcome, err
  redis.call('HSET', key, 'attempt_history', cjson.encode(history))
end

local function end_lease(key, job_id)
  redis.call('HDEL', key, 'lease_id', 'lease_expires_at', 'consumer')
  redis.call('ZREM', LEASED, job_id)
end

local function make_dead(key, job_id, finished_at)
  redis.call('HSET', key, 'state', 'dead', 'finished_at', finished_at)
  redis.call('ZADD', DEAD, finished_at, job_id)
end

-- Why a job whose last allowed lease ran out is dead, as server/stores/lease_expiry.py words it
-- with the same arithmetic: the lease's length comes from its id, whose first ten characters
-- (Crockford's base32) are the millisecond it was taken.
local CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
local function lease_expired_error(lease_id, expires_at, attempts, allowed)
  local fallback = string.format('lease expired, attempt %d of %d', attempts, allowed)
  local body = string.match(lease_id or '', '_([^_]*)$')
  if body == nil or #body ~= 26 then return fallback end
  local milliseconds = 0
  for index = 1, 10 do
    local digit = string.find(CROCKFORD, string.sub(body, index, index), 1, true)
    if digit == nil then return fallback end
    milliseconds = milliseconds * 32 + digit - 1
  end
  local seconds = math.floor(tonumber(expires_at) - milliseconds / 1000 + 0.5)
  return string.format('lease expired after %d s, attempt %d of %d', seconds, attempts, allowed)
end

local function make_available(key, job_id)
  redis.call('ZADD', AVAIL, redis.call('HGET', key, 'seq'), job_id)
end

-- Ends the lease ``lease_id`` of a job never tried: ready now, the lease's attempt given back.
local function release(key, job_id, lease_id)
  end_lease(key, job_id)
  end_attempt(key, lease_id, NOW_TEXT, 'released', nil)
  redis.call('HINCRBY', key, 'attempts', -1)
  redis.call('HSET', key, 'state', 'ready', 'available_at', NOW_TEXT)
  make_available(key, job_id)
end

local function drop_finished(set, cutoff)
  local ids = redis.call('ZRANGEBYSCORE', set, '-inf', cutoff, 'LIMIT', 0, 1000)
  for _, job_id in ipairs(ids) do
    redis.call('DEL', JOB .. job_id)
    redis.call('ZREM', ALL, job_id)
    redis.call('ZREM', set, job_id)
  end
end

-- The jobs settle() made dead because their last allowed lease ran out. A script that settles
-- answers settled(its answer), which is {its answer, these ids}, for the store to report them.
local buried = {}

local function settled(answer)
  return {answer, buried}
end

-- Bring the indexes up to NOW: due delayed jobs and ended leases become available (or dead), and
-- what outlived its retention or deduplication window goes.
local function settle()
  for _, job_id in ipairs(redis.call('ZRANGEBYSCORE', DELAYED, '-inf', NOW_TEXT)) do
    make_available(JOB .. job_id, job_id)
    redis.call('ZREM', DELAYED, job_id)
  end
  local attempts_allowed = max_attempts()
  for _, job_id in ipairs(redis.call('ZRANGEBYSCORE', LEASED, '-inf', NOW_TEXT)) do
    local key = JOB .. job_id
    local job = redis.call('HMGET', key, 'attempts', 'lease_expires_at', 'lease_id')
    end_lease(key, job_id)
    local attempts = tonumber(job[1])
    local reason = lease_expired_error(job[3], job[2], attempts, attempts_allowed)
    end_attempt(key, job[3], job[2], 'lease_expired', reason)
    if attempts >= attempts_allowed then
      make_dead(key, job_id, job[2])
      redis.call('HSET', key, 'last_error', reason)
      buried[#buried + 1] = job_id
    else
      redis.call('HSET', key, 'state', 'ready')
      make_available(key, job_id)
    end
  end
  local cutoff = fmt(NOW - tonumber(redis.call('HGET', META, 'retention_seconds')))
  drop_finished(DONE, cutoff)
  drop_finished(DEAD, cutoff)
  local expired = redis.call('ZRANGEBYSCORE', DEDUP_EXP, '-inf', NOW_TEXT, 'LIMIT', 0, 1000)
  for _, deduplication_id in ipairs(expired) do
    redis.call('HDEL', DEDUP, deduplication_id)
    redis.call('ZREM', DEDUP_EXP, deduplication_id)
  end
end

-- The key of the dead job ``job_id``, its queue then settled; refuses a job in any other state,
-- named as a reader of the job sees it (a ready job not yet available is 'delayed'), before
-- settling: a refused script must write nothing, as Redis keeps what a script wrote before failing.
local function require_dead_job(job_id)
  require_queue()
  local key = require_job(job_id)
  local job = redis.call('HMGET', key, 'state', 'available_at', 'lease_expires_at', 'attempts')
  local state = job[1]
  if state == 'ready' and tonumber(job[2]) > NOW then
    state = 'delayed'
  elseif state == 'leased' and tonumber(job[3]) <= NOW then
    state = 'ready'
    if tonumber(job[4]) >= max_attempts() then state = 'dead' end
  end
  if state ~= 'dead' then fail('invalid_state', state) end
  settle()
  return key
end

local function queue_answer()
  return {
    redis.call('HGETALL', META),
    redis.call('ZCARD', AVAIL),
    redis.call('ZCARD', DELAYED),
    redis.call('ZCARD', LEASED),
    redis.call('ZCARD', DEAD),
  }
end
