-- uses: common
-- KEYS[1] stream: the stream
-- KEYS[2] group_settings: the hash of its groups' settings (group -> max_deliveries)
-- ARGV[1] group: the consumer group to create
-- ARGV[2] start_id: the id the group starts after ('$' for the stream's end)
-- ARGV[3] mkstream: '1' to create a stream that does not exist
-- ARGV[4] max_deliveries: the group's limit ('' for unlimited)
local stream, group_settings = KEYS[1], KEYS[2]
local group, start_id, mkstream, max_deliveries = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if mkstream ~= '1' and redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
local arguments = {'XGROUP', 'CREATE', stream, group, start_id}
if mkstream == '1' then arguments[#arguments + 1] = 'MKSTREAM' end
-- XINFO GROUPS tells a group's lag only while Redis knows how many entries the group has read,
-- which a group made at '$' leaves unknown unless told: everything added so far.
if start_id == '$' then
  local added = 0
  if redis.call('EXISTS', stream) == 1 then
    local info = redis.call('XINFO', 'STREAM', stream)
    for index = 1, #info, 2 do
      if info[index] == 'entries-added' then added = info[index + 1] end
    end
  end
  arguments[#arguments + 1] = 'ENTRIESREAD'
  arguments[#arguments + 1] = added
end
local created = redis.pcall(unpack(arguments))
if type(created) == 'table' and created.err then
  if string.find(created.err, 'BUSYGROUP', 1, true) then fail('group_exists') end
  return created
end
if max_deliveries == '' then
  redis.call('HDEL', group_settings, group)
else
  redis.call('HSET', group_settings, group, max_deliveries)
end
for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
  local fields = {}
  for index = 1, #info, 2 do fields[info[index]] = info[index + 1] end
  if fields['name'] == group then
    return {fields['consumers'], fields['pending'], fields['last-delivered-id']}
  end
end
fail('group_not_found')
