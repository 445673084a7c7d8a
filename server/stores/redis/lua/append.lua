-- uses: common, idempotency, trim
-- KEYS[1] stream: the stream
-- KEYS[2] record: the idempotency record (none for a plain append)
-- ARGV[1] now: the store's clock
-- ARGV[2] request_hash: the request's hash (see lib/idempotency.lua)
-- ARGV[3] ttl: the idempotency record's time to live, in seconds
-- ARGV[4] nomkstream: '1' to refuse a stream that does not exist
-- ARGV[5] traceparent: kept with each entry as its field 't' ('' for none)
-- ARGV[6..] trim steps: see lib/trim.lua
-- ARGV[after the trim steps..] bodies: each entry's body, as JSON text
-- The trimmed count is the length before, plus the entries added, minus the length after: all
-- inside this one script.
local stream, record = KEYS[1], KEYS[2]
local now, request_hash, ttl = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local nomkstream, traceparent, trim_steps = ARGV[4], ARGV[5], 6
local kept = replayed_result(record, request_hash, now)
if kept then return {1, kept} end
if nomkstream == '1' and redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
local length_before = redis.call('XLEN', stream)
local ids = {}
for index = trim_steps + 1 + tonumber(ARGV[trim_steps]) * 3, #ARGV do
  if traceparent == '' then
    ids[#ids + 1] = redis.call('XADD', stream, '*', 'b', ARGV[index])
  else
    ids[#ids + 1] = redis.call('XADD', stream, '*', 'b', ARGV[index], 't', traceparent)
  end
end
trim(stream, trim_steps)
local length = redis.call('XLEN', stream)
local result = {length, length_before + #ids - length, ids}
remember(record, request_hash, now, ttl, result)
return {0, result}
