-- uses: common, idempotency, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- KEYS[11] record: the idempotency record (none for a plain publish)
-- ARGV[3] request_hash: the request's hash (see lib/idempotency.lua)
-- ARGV[4] ttl: the idempotency record's time to live, in seconds
-- ARGV[5] traceparent: kept with each new job ('' = none)
-- ARGV[6] job_count: how many jobs follow
-- ARGV[7..] jobs: five arguments each: job_id, topic, payload, delay, deduplication_id ('' = none)
-- A receipt is {job_id, deduplicated, topic}; a new write's result is settled(receipts), a
-- replay's the receipts kept.
local record = KEYS[11]
local request_hash, ttl = ARGV[3], tonumber(ARGV[4])
local traceparent, job_count = ARGV[5], tonumber(ARGV[6])
local kept = replayed_result(record, request_hash, NOW)
if kept then return {1, kept} end
require_queue()
settle()
local window = tonumber(redis.call('HGET', META, 'deduplication_window_seconds'))
local receipts = {}
local ready = false
for index = 0, job_count - 1 do
  local base = 7 + index * 5
  local job_id, topic, payload = ARGV[base], ARGV[base + 1], ARGV[base + 2]
  local delay, deduplication_id = tonumber(ARGV[base + 3]), ARGV[base + 4]
  local earlier = false
  if deduplication_id ~= '' then
    local expires = redis.call('ZSCORE', DEDUP_EXP, deduplication_id)
    if expires and tonumber(expires) > NOW then
      earlier = redis.call('HGET', DEDUP, deduplication_id)
    end
  end
  if earlier then
    receipts[#receipts + 1] = {earlier, 1, topic}
  else
    local key = JOB .. job_id
    local seq = redis.call('HINCRBY', META, 'seq', 1)
    local available_at = NOW_TEXT
    if delay > 0 then available_at = fmt(NOW + delay) end
    redis.call('HSET', key, 'id', job_id, 'topic', topic, 'payload', payload, 'seq', seq,
      'state', 'ready', 'attempts', 0, 'published_at', NOW_TEXT, 'available_at', available_at)
    if traceparent ~= '' then redis.call('HSET', key, 'traceparent', traceparent) end
    redis.call('ZADD', ALL, seq, job_id)
    if delay > 0 then
      redis.call('ZADD', DELAYED, available_at, job_id)
    else
      redis.call('ZADD', AVAIL, seq, job_id)
      ready = true
    end
    if deduplication_id ~= '' then
      redis.call('HSET', key, 'deduplication_id', deduplication_id)
      redis.call('HSET', DEDUP, deduplication_id, job_id)
      redis.call('ZADD', DEDUP_EXP, fmt(NOW + window), deduplication_id)
    end
    receipts[#receipts + 1] = {job_id, 0, topic}
  end
end
-- A job that becomes due later needs no ring: a waiting lease's own re-check finds it.
if ready then ring() end
remember(record, request_hash, NOW, ttl, receipts)
return {0, settled(receipts)}
