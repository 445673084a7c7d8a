-- uses: common
-- KEYS[1] stream, KEYS[2] its groups' settings; ARGV: group.
if redis.call('EXISTS', KEYS[1]) == 0 then fail('stream_not_found') end
if redis.call('XGROUP', 'DESTROY', KEYS[1], ARGV[1]) == 0 then fail('group_not_found') end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
