-- uses: common, queue
-- KEYS[1..10], ARGV[1] job prefix, ARGV[2] now: the queue's, as lib/queue.lua names them
-- ARGV[3] allowed_attempts: the queue's max_attempts
-- ARGV[4] lease_seconds: its lease_seconds
-- ARGV[5] retention_seconds: its retention_seconds
-- ARGV[6] deduplication_window: its deduplication_window_seconds
local allowed_attempts, lease_seconds = ARGV[3], ARGV[4]
local retention_seconds, deduplication_window = ARGV[5], ARGV[6]
local created = 0
if redis.call('EXISTS', META) == 0 then
  redis.call('HSET', META, 'created_at', NOW_TEXT, 'seq', 0)
  created = 1
end
redis.call('HSET', META, 'max_attempts', allowed_attempts, 'lease_seconds', lease_seconds,
  'retention_seconds', retention_seconds, 'deduplication_window_seconds', deduplication_window)
settle()
return settled({created, queue_answer()})
