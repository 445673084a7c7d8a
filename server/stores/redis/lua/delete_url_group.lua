-- uses: common
-- KEYS[1] groups: the hash of URL groups (name -> '<updated_at> <endpoints JSON>')
-- KEYS[2] created: the hash of their creation times (name -> created_at)
-- ARGV[1] name: the URL group to delete
local groups, created, name = KEYS[1], KEYS[2], ARGV[1]
if redis.call('HDEL', groups, name) == 0 then fail('url_group_not_found') end
redis.call('HDEL', created, name)
return 1
