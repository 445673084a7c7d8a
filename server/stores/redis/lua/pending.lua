-- uses: common, require_group
-- KEYS[1] stream: the stream
-- ARGV[1] group: the consumer group
-- ARGV[2] count: how many pending entries to list at most
local stream, group, count = KEYS[1], ARGV[1], ARGV[2]
require_group(stream, group)
return redis.call('XPENDING', stream, group, '-', '+', count)
