-- uses: common
-- KEYS[1] groups: the hash of URL groups (name -> '<updated_at> <endpoints JSON>')
-- KEYS[2] created: the hash of their creation times (name -> created_at)
-- ARGV[1] name: the URL group
-- ARGV[2] endpoints: its endpoints, as JSON text
-- ARGV[3] now: the store's clock, the group's update (and, when new, creation) time
local groups, created, name = KEYS[1], KEYS[2], ARGV[1]
local endpoints, now = ARGV[2], ARGV[3]
redis.call('HSETNX', created, name, now)
redis.call('HSET', groups, name, now .. ' ' .. endpoints)
return redis.call('HGET', created, name)
