-- uses: common
-- KEYS[1] stream: the stream
-- KEYS[2] group_settings: the hash of its groups' settings (group -> max_deliveries)
-- ARGV[1] group: the consumer group to delete
local stream, group_settings, group = KEYS[1], KEYS[2], ARGV[1]
if redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
if redis.call('XGROUP', 'DESTROY', stream, group) == 0 then fail('group_not_found') end
redis.call('HDEL', group_settings, group)
return 1
