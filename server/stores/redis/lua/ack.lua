-- uses: common, require_group
-- KEYS[1] stream; ARGV: group, ids...
require_group(KEYS[1], ARGV[1])
if #ARGV == 1 then return 0 end
return redis.call('XACK', KEYS[1], unpack(ARGV))
