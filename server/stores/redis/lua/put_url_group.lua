-- uses: common
-- KEYS: groups hash, created hash; ARGV: name, endpoints JSON, now.
redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. ' ' .. ARGV[2])
return redis.call('HGET', KEYS[2], ARGV[1])
