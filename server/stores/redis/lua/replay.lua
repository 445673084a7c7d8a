-- uses: common, idempotency
-- KEYS[1] record: the idempotency record
-- ARGV[1] now: the store's clock
-- ARGV[2] request_hash: the request's hash (see lib/idempotency.lua)
-- A claim's replay_only: answer the record, never write.
local record = KEYS[1]
local now, request_hash = tonumber(ARGV[1]), ARGV[2]
local kept = replayed_result(record, request_hash, now)
if not kept then fail('idempotency_record_not_found') end
return {1, kept}
