-- uses: common, messages
-- ARGV[3] message id.
return redis.call('HGETALL', require_message(ARGV[3]))
