-- Scripts report refusals as errors "SPOOL <code> [<detail word>]"; the store turns them into
-- typed errors. They return numbers a script computed as strings, never Lua numbers, because
-- Redis would round a Lua number to 14 digits.
local function fail(code, word)
  error({err = 'SPOOL ' .. code .. ' ' .. (word or '')})
end
local function fmt(number)
  return string.format('%.17g', number)
end
