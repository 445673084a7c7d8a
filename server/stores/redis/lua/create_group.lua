-- uses: common
-- KEYS[1] stream, KEYS[2] its groups' settings; ARGV: group, start id, mkstream, max deliveries
-- ('' for unlimited).
if ARGV[3] ~= '1' and redis.call('EXISTS', KEYS[1]) == 0 then fail('stream_not_found') end
local arguments = {'XGROUP', 'CREATE', KEYS[1], ARGV[1], ARGV[2]}
if ARGV[3] == '1' then arguments[#arguments + 1] = 'MKSTREAM' end
local created = redis.pcall(unpack(arguments))
if type(created) == 'table' and created.err then
  if string.find(created.err, 'BUSYGROUP', 1, true) then fail('group_exists') end
  return created
end
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
end
for _, info in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local fields = {}
  for index = 1, #info, 2 do fields[info[index]] = info[index + 1] end
  if fields['name'] == ARGV[1] then
    return {fields['consumers'], fields['pending'], fields['last-delivered-id']}
  end
end
fail('group_not_found')
