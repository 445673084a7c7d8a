-- uses: common, queue
-- ARGV[3..6]: max_attempts, lease_seconds, retention_seconds, deduplication_window_seconds.
local created = 0
if redis.call('EXISTS', META) == 0 then
  redis.call('HSET', META, 'created_at', NOW_TEXT, 'seq', 0)
  created = 1
end
redis.call('HSET', META, 'max_attempts', ARGV[3], 'lease_seconds', ARGV[4],
  'retention_seconds', ARGV[5], 'deduplication_window_seconds', ARGV[6])
settle()
return {created, queue_answer()}
