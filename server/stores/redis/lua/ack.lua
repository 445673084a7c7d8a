-- uses: common, require_group
-- KEYS[1] stream: the stream
-- ARGV[1] group: the consumer group
-- ARGV[2..] ids: the entry ids to acknowledge
local stream, group = KEYS[1], ARGV[1]
require_group(stream, group)
if #ARGV == 1 then return 0 end
return redis.call('XACK', stream, unpack(ARGV))
