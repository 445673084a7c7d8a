-- uses: common
-- KEYS: groups hash, created hash; ARGV: name.
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then fail('url_group_not_found') end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
