-- uses: common, require_group
-- KEYS[1] stream; ARGV: group, count.
require_group(KEYS[1], ARGV[1])
return redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', ARGV[2])
