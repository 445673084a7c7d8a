local function require_group(stream, group)
  if redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    for index = 1, #info, 2 do
      if info[index] == 'name' and info[index + 1] == group then return end
    end
  end
  fail('group_not_found')
end
